package agent

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/join"
)

// renewal keeps the node certificate fresh: once less than a third of its
// life is left it asks the server for a new one over mutual TLS with the
// current one (no join token), saves it, and swaps it into every client
// that takes its certificate from src. Pods are never touched.
type renewal struct {
	dir   string
	src   *join.CertSource
	roots *join.Roots // the CAs trusted for the server (ca.crt), swapped by the bundle fetch
	http  *http.Client
	log   *slog.Logger
	now   func() time.Time // the server's time as best known
	onNew func()           // after a swap: let clients drop old connections

	kick   chan struct{} // renew now (the certificate's CA is no longer the signing one)
	saveMu sync.Mutex    // one writer of the credential files at a time
	mu     sync.Mutex
	cur    *join.Credentials
}

func newRenewal(dir string, creds *join.Credentials, log *slog.Logger, now func() time.Time) (*renewal, error) {
	tc, err := creds.TLSConfig()
	if err != nil {
		return nil, err
	}
	roots, err := join.NewRoots(creds.CACertPEM)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(creds.ServerURL)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", creds.ServerURL, err)
	}
	src := join.NewCertSource(tc.Certificates[0])
	tr := &http.Transport{TLSClientConfig: roots.Use(src.UseCurrent(tc), u.Hostname()), ForceAttemptHTTP2: true}
	return &renewal{dir: dir, src: src, roots: roots, http: &http.Client{Transport: tr, Timeout: time.Minute},
		log: log, now: now, cur: creds, kick: make(chan struct{}, 1)}, nil
}

// certUpkeep makes the node certificate's renewal and the clock watch; the
// renewal reckons with the server's time as the watch measures it.
func certUpkeep(cfg *Config, creds *join.Credentials) (*renewal, *clockWatch, error) {
	log := cfg.Logger.With("component", "certificates")
	var clock *clockWatch
	ren, err := newRenewal(cfg.AgentDir(), creds, log, func() time.Time { return clock.Now() })
	if err != nil {
		return nil, nil, fmt.Errorf("node certificate: %w", err)
	}
	clock, err = newClockWatch(creds, ren.roots, func() (*x509.Certificate, error) { return ren.creds().Certificate() }, log)
	if err != nil {
		return nil, nil, fmt.Errorf("node certificate: %w", err)
	}
	return ren, clock, nil
}

func (r *renewal) creds() *join.Credentials {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// run renews whenever due until ctx ends. It looks again at least every
// twentieth of the certificate's life, so a clock that jumps (NTP after a
// boot without a real-time clock) is noticed.
func (r *renewal) run(ctx context.Context) {
	defer r.http.CloseIdleConnections()
	var retry time.Duration
	for {
		cert, err := r.creds().Certificate()
		if err != nil {
			r.log.Error("node certificate does not parse; not renewing", "err", err)
			return
		}
		life := cert.NotAfter.Sub(cert.NotBefore)
		wait := join.RenewAt(cert.NotBefore, cert.NotAfter).Sub(r.now())
		if r.kicked() {
			wait = 0
		}
		if wait <= 0 {
			if err := r.renewOnce(ctx); err != nil {
				retry = min(max(2*retry, time.Second), max(life/30, time.Second), 5*time.Minute)
				r.renewFailed(cert.NotAfter, retry, err)
				wait = retry
			} else {
				retry, wait = 0, 0
			}
		}
		wait = min(wait, max(life/20, time.Second), time.Hour)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		case <-r.kick:
			r.kick <- struct{}{} // seen by kicked at the top of the loop
		}
	}
}

// renewSoon makes run renew now, whatever the certificate's age.
func (r *renewal) renewSoon() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

func (r *renewal) kicked() bool {
	select {
	case <-r.kick:
		return true
	default:
		return false
	}
}

// renewOnce gets, saves and swaps in a new certificate.
func (r *renewal) renewOnce(ctx context.Context) error {
	r.saveMu.Lock()
	defer r.saveMu.Unlock()
	release := r.src.Hold()
	defer release()
	next, err := join.Renew(ctx, r.creds(), r.http)
	if err != nil {
		return err
	}
	if err := next.SaveRenewed(r.dir); err != nil {
		return fmt.Errorf("save renewed certificate: %w", err)
	}
	pair, err := tls.X509KeyPair(next.CertPEM, next.KeyPEM)
	if err != nil {
		return fmt.Errorf("renewed certificate: %w", err)
	}
	r.src.Set(pair)
	release()
	if err := r.roots.Set(next.CACertPEM); err != nil {
		return err
	}
	r.mu.Lock()
	r.cur = next
	r.mu.Unlock()
	r.http.CloseIdleConnections()
	if r.onNew != nil {
		r.onNew()
	}
	r.log.Info("node certificate renewed", "notBefore", pair.Leaf.NotBefore, "notAfter", pair.Leaf.NotAfter,
		"serial", pair.Leaf.SerialNumber.Text(16))
	return nil
}

// renewFailed logs a failed renewal; once the certificate has expired (by
// the server's time) it says what only an admin can do about it.
func (r *renewal) renewFailed(notAfter time.Time, retry time.Duration, err error) {
	if r.now().After(notAfter) {
		r.log.Error("the node certificate has expired, so the server refuses it and it cannot be renewed: "+
			"the node must join again (docs/JOIN.md)", "notAfter", notAfter, "err", err)
		return
	}
	r.log.Warn("node certificate renewal failed; retrying", "in", retry, "notAfter", notAfter, "err", err)
}
