package pki

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/bramble-edge/bramble/server/auth"
)

func newSerial() (*big.Int, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("draw serial number: %w", err)
	}
	return serial, nil
}

// sign issues tmpl for pub under the CA, valid from now (backdated by an
// hour, or a tenth of ttl when that is less, so that a short-lived
// certificate's renewal point, two thirds into its life, stays ahead) for
// ttl, but never past the CA's own expiry.
func (p *PKI) sign(tmpl *x509.Certificate, pub crypto.PublicKey, ttl time.Duration) ([]byte, error) {
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	now := p.cfg.Now()
	tmpl.SerialNumber = serial
	tmpl.NotBefore = now.Add(-min(backdate, ttl/10))
	tmpl.NotAfter = now.Add(ttl)
	if tmpl.NotAfter.After(p.caCert.NotAfter) {
		tmpl.NotAfter = p.caCert.NotAfter
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.BasicConstraintsValid = true
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, pub, p.caKey)
	if err != nil {
		return nil, fmt.Errorf("sign certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	return der, nil
}

// issueWithKey makes a fresh P-256 key and a certificate for it.
func (p *PKI) issueWithKey(tmpl *x509.Certificate, ttl time.Duration) (keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return keyPair{}, fmt.Errorf("generate key: %w", err)
	}
	der, err := p.sign(tmpl, &key.PublicKey, ttl)
	if err != nil {
		return keyPair{}, err
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return keyPair{}, err
	}
	return keyPair{certPEM: encodeCert(der), keyPEM: keyPEM}, nil
}

func clientTemplate(name string, groups []string) *x509.Certificate {
	return &x509.Certificate{
		Subject:     pkix.Name{CommonName: name, Organization: groups},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
}

// SignClientCert issues a client certificate for the key in csr with
// subject CN=name, O=groups; the CSR's own subject is ignored, so the caller
// (the join handler) decides the identity. The CSR's signature must verify
// (proof that the requester holds the key). ttl <= 0 means one year. The
// certificate is returned PEM encoded.
func (p *PKI) SignClientCert(csr *x509.CertificateRequest, name string, groups []string, ttl time.Duration) ([]byte, error) {
	if csr == nil {
		return nil, errors.New("sign client certificate: no certificate request")
	}
	if name == "" {
		return nil, errors.New("sign client certificate: empty name")
	}
	if err := csr.CheckSignature(); err != nil {
		return nil, fmt.Errorf("certificate request for %q: signature: %w", name, err)
	}
	if ttl <= 0 {
		ttl = leafValidity
	}
	der, err := p.sign(clientTemplate(name, groups), csr.PublicKey, ttl)
	if err != nil {
		return nil, err
	}
	return encodeCert(der), nil
}

// NewClientCert makes a key and a client certificate CN=name, O=groups,
// both PEM encoded. ttl <= 0 means one year.
func (p *PKI) NewClientCert(name string, groups []string, ttl time.Duration) (certPEM, keyPEM []byte, err error) {
	if name == "" {
		return nil, nil, errors.New("new client certificate: empty name")
	}
	if ttl <= 0 {
		ttl = leafValidity
	}
	kp, err := p.issueWithKey(clientTemplate(name, groups), ttl)
	return kp.certPEM, kp.keyPEM, err
}

// ensureAdmin keeps client-admin.crt/.key current.
func (p *PKI) ensureAdmin() error {
	kp, err := p.ensureLeaf("client-admin", nil, func() (keyPair, error) {
		return p.issueWithKey(clientTemplate(auth.AdminUser, []string{auth.GroupMasters}), leafValidity)
	})
	p.admin = kp
	return err
}

// ensureLeaf reuses <name>.crt/.key when they form a pair signed by the CA,
// are not within renewBefore of expiry and satisfy fits (nil: any);
// otherwise it issues and writes a new pair.
func (p *PKI) ensureLeaf(name string, fits func(*x509.Certificate) bool, issue func() (keyPair, error)) (keyPair, error) {
	kp, ok, err := p.readPair(name)
	if err != nil {
		return keyPair{}, err
	}
	if ok {
		reason := p.unusable(kp, fits)
		if reason == "" {
			return kp, nil
		}
		p.cfg.Logger.Info("issuing certificate again", "cert", name, "reason", reason)
	}
	kp, err = issue()
	if err != nil {
		return keyPair{}, fmt.Errorf("issue %s certificate: %w", name, err)
	}
	if err := p.writePair(name, kp); err != nil {
		return keyPair{}, err
	}
	return kp, nil
}

// unusable says why an existing pair must be replaced, or "" when it is fine.
func (p *PKI) unusable(kp keyPair, fits func(*x509.Certificate) bool) string {
	pair, err := tls.X509KeyPair(kp.certPEM, kp.keyPEM)
	if err != nil {
		return "certificate and key do not load: " + err.Error()
	}
	cert := pair.Leaf
	if err := cert.CheckSignatureFrom(p.caCert); err != nil {
		return "not signed by the cluster CA"
	}
	if cert.NotAfter.Sub(p.cfg.Now()) < renewBefore {
		return "expires within 90 days"
	}
	if fits != nil && !fits(cert) {
		return "names changed"
	}
	return ""
}
