package join

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Roots holds the CAs a node trusts for the server's certificate (its
// ca.crt: one CA, or the bundle of a CA rotation). Every TLS client of the
// agent (MQTT, REST, renewal, clock) verifies the server against the
// roots held at each handshake, so a new bundle takes effect from the next
// connection on, without a restart.
type Roots struct {
	mu   sync.Mutex
	cas  []*x509.Certificate
	pool *x509.CertPool
}

// NewRoots returns a holder of the CAs in bundle (ParseBundle).
func NewRoots(bundle []byte) (*Roots, error) {
	r := &Roots{}
	if err := r.Set(bundle); err != nil {
		return nil, err
	}
	return r, nil
}

// Set replaces the CAs trusted from now on.
func (r *Roots) Set(bundle []byte) error {
	cas, err := ParseBundle(bundle)
	if err != nil {
		return fmt.Errorf("CA bundle: %w", err)
	}
	pool := x509.NewCertPool()
	for _, c := range cas {
		pool.AddCert(c)
	}
	r.mu.Lock()
	r.cas, r.pool = cas, pool
	r.mu.Unlock()
	return nil
}

// CAs are the CAs trusted now (the caller must not change them).
func (r *Roots) CAs() []*x509.Certificate {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cas
}

func (r *Roots) current() *x509.CertPool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pool
}

// Use makes cfg verify the server it reaches at host (a DNS name or an IP
// address) against the roots held at each handshake: the chain must end
// at one of them and the certificate must name host and be valid for
// server authentication. It replaces RootCAs (a fixed pool cannot change).
func (r *Roots) Use(cfg *tls.Config, host string) *tls.Config {
	return r.use(cfg, host, nil)
}

// UseTimeless is Use, checking the chain as of the server certificate's
// own start: a clock far off still learns the server's Date from the
// genuine server (agent/clock.go).
func (r *Roots) UseTimeless(cfg *tls.Config, host string) *tls.Config {
	return r.use(cfg, host, func(leaf *x509.Certificate) time.Time { return leaf.NotBefore.Add(time.Second) })
}

func (r *Roots) use(cfg *tls.Config, host string, at func(*x509.Certificate) time.Time) *tls.Config {
	cfg.RootCAs = nil
	cfg.InsecureSkipVerify = true // VerifyConnection checks instead, against the current roots
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("server sent no certificate")
		}
		leaf := cs.PeerCertificates[0]
		opts := x509.VerifyOptions{Roots: r.current(), Intermediates: x509.NewCertPool(), DNSName: host}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		if at != nil {
			opts.CurrentTime = at(leaf)
		}
		if _, err := leaf.Verify(opts); err != nil {
			return &tls.CertificateVerificationError{UnverifiedCertificates: cs.PeerCertificates, Err: err}
		}
		return nil
	}
	return cfg
}
