package agent

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bramble-edge/bramble/join"
)

// maxSkew is how far this machine's clock may be from the server's (by its
// HTTP Date header) before the agent warns.
const maxSkew = 5 * time.Minute

// clockProblem says what is wrong with a clock reading now, for a node
// whose certificate is cert, given the server's time (zero: unknown); ""
// when nothing is.
func clockProblem(now time.Time, cert *x509.Certificate, server time.Time) string {
	const after = "TLS to the server fails until the clock is right; pods keep running from the local cache and the agent retries until the clock is set (NTP)"
	if now.Before(cert.NotBefore) {
		return fmt.Sprintf("this machine's clock (%s) is before the node certificate's start (%s): %s",
			now.UTC().Format(time.RFC3339), cert.NotBefore.UTC().Format(time.RFC3339), after)
	}
	if server.IsZero() {
		return ""
	}
	skew := now.Sub(server)
	if skew.Abs() <= maxSkew {
		return ""
	}
	way := "ahead of"
	if skew < 0 {
		way = "behind"
	}
	return fmt.Sprintf("this machine's clock (%s) is %s %s the server's (%s, from its Date header): %s",
		now.UTC().Format(time.RFC3339), skew.Abs().Round(time.Second), way, server.UTC().Format(time.RFC3339), after)
}

// clockWatch compares this machine's clock with the node certificate and
// the server's, says clearly when it is off, and keeps the offset for the
// renewal to reckon with.
type clockWatch struct {
	serverURL string
	http      *http.Client
	cert      func() (*x509.Certificate, error)
	log       *slog.Logger
	now       func() time.Time
	offset    atomic.Int64 // server minus local, ns; 0 when within a few seconds
	bad       bool
}

// newClockWatch makes the watch; its client verifies the server against
// roots (nil: the CAs of creds).
func newClockWatch(creds *join.Credentials, roots *join.Roots, cert func() (*x509.Certificate, error), log *slog.Logger) (*clockWatch, error) {
	if roots == nil {
		var err error
		if roots, err = join.NewRoots(creds.CACertPEM); err != nil {
			return nil, err
		}
	}
	u, err := url.Parse(creds.ServerURL)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", creds.ServerURL, err)
	}
	// The chain and name are checked as of the server certificate's own
	// start, so a clock far off still learns the server's Date from the
	// genuine server.
	tc := roots.UseTimeless(&tls.Config{MinVersion: tls.VersionTLS12}, u.Hostname())
	return &clockWatch{serverURL: strings.TrimRight(creds.ServerURL, "/"), cert: cert, log: log, now: time.Now,
		http: &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}}, nil
}

// Now is the server's time as best known: the local clock plus the offset
// last measured.
func (w *clockWatch) Now() time.Time { return w.now().Add(time.Duration(w.offset.Load())) }

// serverDate reads the server's Date header from GET /cacerts.
func (w *clockWatch) serverDate(ctx context.Context) (time.Time, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.serverURL+join.CACertsPath, nil)
	if err != nil {
		return time.Time{}, err
	}
	resp, err := w.http.Do(req)
	if err != nil {
		return time.Time{}, err
	}
	resp.Body.Close()
	return http.ParseTime(resp.Header.Get("Date"))
}

// check measures once and logs what is wrong; it reports whether the clock
// is fine.
func (w *clockWatch) check(ctx context.Context) bool {
	cert, err := w.cert()
	if err != nil {
		return true
	}
	server, err := w.serverDate(ctx)
	if err != nil {
		w.log.Debug("cannot read the server's time", "err", err)
	}
	now := w.now()
	if !server.IsZero() {
		off := server.Sub(now)
		if off.Abs() < 3*time.Second { // Date has whole seconds
			off = 0
		}
		w.offset.Store(int64(off))
	}
	msg := clockProblem(now, cert, server)
	switch {
	case msg != "":
		w.log.Warn(msg)
		w.bad = true
	case w.bad:
		w.log.Info("this machine's clock is right again", "now", now.UTC())
		w.bad = false
	}
	return msg == ""
}

// run checks at start, then every 5 minutes, or every 15 seconds while the
// clock is off, until ctx ends.
func (w *clockWatch) run(ctx context.Context) {
	defer w.http.CloseIdleConnections()
	for {
		wait := 5 * time.Minute
		if !w.check(ctx) {
			wait = 15 * time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
