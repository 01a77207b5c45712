package agent

import (
	"bytes"
	"context"
	"crypto/x509"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/pki"
)

func TestClockProblem(t *testing.T) {
	start := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	cert := &x509.Certificate{NotBefore: start, NotAfter: start.Add(365 * 24 * time.Hour)}
	for _, tc := range []struct {
		name        string
		now, server time.Time
		want        string
	}{
		{"fine", start.Add(time.Hour), start.Add(time.Hour + time.Minute), ""},
		{"no server time", start.Add(time.Hour), time.Time{}, ""},
		{"before the certificate", time.Date(1970, 1, 1, 0, 0, 10, 0, time.UTC), time.Time{},
			"this machine's clock (1970-01-01T00:00:10Z) is before the node certificate's start (2026-06-01T12:00:00Z)"},
		{"behind the server", start.Add(time.Hour), start.Add(3 * time.Hour), "is 2h0m0s behind the server's"},
		{"ahead of the server", start.Add(30 * 24 * time.Hour), start.Add(time.Hour), "is 719h0m0s ahead of the server's"},
	} {
		got := clockProblem(tc.now, cert, tc.server)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		if got != "" && !strings.Contains(got, "pods keep running") {
			t.Errorf("%s: %q does not say the pods keep running", tc.name, got)
		}
	}
}

// clockEnv is a real TLS server with the cluster's serving certificate and
// a node's credentials for it.
func clockEnv(t *testing.T) (*join.Credentials, *x509.Certificate) {
	t.Helper()
	p, err := pki.Load(filepath.Join(t.TempDir(), "tls"), pki.Config{SANs: []string{"127.0.0.1"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(p.CACertPEM()) }))
	srv.TLS = p.ServingTLSConfig()
	srv.StartTLS()
	t.Cleanup(srv.Close)
	certPEM, keyPEM, err := p.NewClientCert("system:node:pi-clock", []string{"system:nodes"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	creds := &join.Credentials{ServerURL: srv.URL, NodeName: "pi-clock", CACertPEM: p.CACertPEM(), CertPEM: certPEM, KeyPEM: keyPEM}
	cert, err := creds.Certificate()
	if err != nil {
		t.Fatal(err)
	}
	return creds, cert
}

// A Pi that booted without a real-time clock reads 1970: the watch says
// so, learns the server's time from its Date header through the genuine
// server's TLS (which the usual verification refuses at that date), and
// says when the clock is right again.
func TestClockWatchSaysWhatIsWrong(t *testing.T) {
	creds, cert := clockEnv(t)
	var logs bytes.Buffer
	w, err := newClockWatch(creds, nil, func() (*x509.Certificate, error) { return cert, nil }, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	w.now = func() time.Time { return time.Date(1970, 1, 1, 0, 0, 5, 0, time.UTC) }
	if w.check(context.Background()) {
		t.Fatal("check with the clock in 1970: ok, want a problem")
	}
	if got := logs.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, "before the node certificate's start") {
		t.Errorf("log: %q, want a warning about the clock", got)
	}
	if off := time.Until(w.Now()).Abs(); off > 5*time.Second {
		t.Errorf("Now with the clock in 1970: %s from the real time, want the server's time", off)
	}
	w.now = func() time.Time { return time.Now().Add(-20 * time.Minute) }
	logs.Reset()
	if w.check(context.Background()) || !strings.Contains(logs.String(), "behind the server's") {
		t.Errorf("check 20 minutes behind: log %q, want it to name the skew", logs.String())
	}
	w.now = time.Now
	logs.Reset()
	if !w.check(context.Background()) || !strings.Contains(logs.String(), "clock is right again") {
		t.Errorf("check with the right time: log %q, want it to say so", logs.String())
	}
}
