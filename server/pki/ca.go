package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// loadOrCreateCA reads ca.crt and ca.key. Without ca.crt it makes a new CA
// (a lone ca.key is a first start that crashed before any certificate was
// handed out). A ca.crt without its key is an error: making a new CA would
// silently cut off every node.
func (p *PKI) loadOrCreateCA() error {
	certPEM, err := os.ReadFile(p.path("ca.crt"))
	if errors.Is(err, fs.ErrNotExist) {
		return p.createCA()
	}
	if err != nil {
		return fmt.Errorf("read ca.crt: %w", err)
	}
	keyPEM, err := os.ReadFile(p.path("ca.key"))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s exists but %s is missing: restore the key, or remove both to make a new CA (every node must then join again)",
			p.path("ca.crt"), p.path("ca.key"))
	}
	if err != nil {
		return fmt.Errorf("read ca.key: %w", err)
	}
	return p.useCA(certPEM, keyPEM)
}

func (p *PKI) useCA(certPEM, keyPEM []byte) error {
	cert, err := parseCertPEM(certPEM)
	if err != nil {
		return fmt.Errorf("parse %s: %w", p.path("ca.crt"), err)
	}
	key, err := parseECKeyPEM(keyPEM)
	if err != nil {
		return fmt.Errorf("parse %s: %w", p.path("ca.key"), err)
	}
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok || !pub.Equal(&key.PublicKey) {
		return fmt.Errorf("%s does not hold the key of %s", p.path("ca.key"), p.path("ca.crt"))
	}
	if !cert.IsCA {
		return fmt.Errorf("%s is not a CA certificate", p.path("ca.crt"))
	}
	if left := cert.NotAfter.Sub(p.cfg.Now()); left < renewBefore {
		p.cfg.Logger.Warn("cluster CA expires soon; nodes must join again under a new CA",
			"notAfter", cert.NotAfter)
	}
	p.caCert, p.caKey, p.caPEM = cert, key, encodeCert(cert.Raw)
	p.caPool = x509.NewCertPool()
	p.caPool.AddCert(cert)
	return nil
}

func (p *PKI) createCA() error {
	if err := p.refuseHalfRotated(); err != nil {
		return err
	}
	kp, err := newCA(p.cfg.Now())
	if err != nil {
		return err
	}
	if err := p.writePair("ca", kp); err != nil {
		return err
	}
	p.cfg.Logger.Info("created cluster CA", "dir", p.dir)
	return p.useCA(kp.certPEM, kp.keyPEM)
}

// newCA makes a CA key and its self-signed certificate, valid for ten
// years. Its path length is 1, so a later CA can be cross-signed by it
// (CAs of clusters made before had path length 0).
func newCA(now time.Time) (keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return keyPair{}, fmt.Errorf("generate CA key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return keyPair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: fmt.Sprintf("bramble-ca@%d", now.Unix())},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            1,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return keyPair{}, fmt.Errorf("create CA certificate: %w", err)
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return keyPair{}, err
	}
	return keyPair{certPEM: encodeCert(der), keyPEM: keyPEM}, nil
}
