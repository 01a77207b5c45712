package pki

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Files of a CA rotation (`bramble certificate rotate-ca`, docs/CERTIFICATES.md),
// beside ca.crt in the tls directory.
const (
	// NextCA ("ca-next.crt/.key") is the CA that rotate-ca made: trusted
	// for client certificates and handed to nodes in the bundle, not yet
	// signing anything.
	NextCA = "ca-next"
	// PreviousCA ("ca-previous.crt/.key") is the CA that rotate-ca
	// --finish replaced: trusted for client certificates (the nodes'
	// certificates it signed) and still in the bundle, so a node keeps
	// trusting its own certificate until it has renewed under ca.crt.
	PreviousCA = "ca-previous"
)

// loadOtherCAs reads ca-next.crt and ca-previous.crt when present and adds
// them to the pool that verifies client certificates.
func (p *PKI) loadOtherCAs() error {
	for _, f := range []struct {
		name string
		dst  **x509.Certificate
	}{{NextCA, &p.next}, {PreviousCA, &p.previous}} {
		data, err := os.ReadFile(p.path(f.name + ".crt"))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s.crt: %w", f.name, err)
		}
		cert, err := parseCertPEM(data)
		if err != nil {
			return fmt.Errorf("parse %s: %w", p.path(f.name+".crt"), err)
		}
		if !cert.IsCA {
			return fmt.Errorf("%s is not a CA certificate", p.path(f.name+".crt"))
		}
		*f.dst = cert
		p.caPool.AddCert(cert)
	}
	if p.next != nil {
		p.cfg.Logger.Info("CA rotation under way: nodes are handed the bundle of both CAs (finish with bramble certificate rotate-ca --finish)",
			"next", p.next.Subject.CommonName)
	}
	return nil
}

// refuseHalfRotated stops a start from making a new CA where a rotation
// left ca-next or ca-previous without ca.crt (a --finish cut short):
// that would cut off every node.
func (p *PKI) refuseHalfRotated() error {
	for _, name := range []string{NextCA, PreviousCA} {
		if _, err := os.Stat(p.path(name + ".crt")); err == nil {
			return fmt.Errorf("%s is missing but %s exists: a CA rotation was cut short; run bramble certificate rotate-ca --finish again",
				p.path("ca.crt"), p.path(name+".crt"))
		}
	}
	return nil
}

// BundlePEM is every CA nodes should trust, PEM encoded: the current CA
// first (the one that signs), then the next and the previous one when a
// rotation has them. Join and renewal answers and GET
// /v1-bramble/ca-bundle hand it out; /cacerts and the token's CA hash
// stay the current CA alone.
func (p *PKI) BundlePEM() []byte {
	var b bytes.Buffer
	b.Write(p.caPEM)
	for _, c := range []*x509.Certificate{p.next, p.previous} {
		if c != nil {
			b.Write(encodeCert(c.Raw))
		}
	}
	return b.Bytes()
}

// Rotating reports whether a CA rotation is under way (ca-next exists).
func (p *PKI) Rotating() bool { return p.next != nil }
