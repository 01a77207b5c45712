// Package pki keeps the cluster's certificate authority and the
// certificates the server issues with it: the API server's serving
// certificate, the admin client certificate and, on request, client
// certificates for nodes and people. Keys are ECDSA P-256: cheap to make on
// a Raspberry Pi, so a first start stays well inside the start-up budget.
//
// Files in the directory given to Load (<data-dir>/server/tls):
//
//	ca.crt, ca.key                  cluster CA (10 years); replaced only by rotate-ca --finish
//	serving.crt, serving.key        API serving certificate (1 year)
//	client-admin.crt, client-admin.key  CN=admin, O=system:masters (1 year)
//	ca-next.crt, ca-previous.crt    the CAs of a rotation (bundle.go, rotateca.go)
//
// Keys are written 0600, certificates 0644, the directory 0700.
package pki

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/bramble-edge/bramble/server/auth"
)

// Config tunes Load; zero values get defaults.
type Config struct {
	// SANs are extra names (DNS names or IP addresses) for the serving
	// certificate, from --tls-san.
	SANs   []string
	Logger *slog.Logger // default slog.Default()
	// Now, Hostname and InterfaceAddrs default to time.Now, os.Hostname and
	// net.InterfaceAddrs; tests replace them.
	Now            func() time.Time
	Hostname       func() (string, error)
	InterfaceAddrs func() ([]net.Addr, error)
}

func (c *Config) setDefaults() {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Hostname == nil {
		c.Hostname = os.Hostname
	}
	if c.InterfaceAddrs == nil {
		c.InterfaceAddrs = net.InterfaceAddrs
	}
}

// Validity periods and the renewal margin.
const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 365 * 24 * time.Hour
	renewBefore  = 90 * 24 * time.Hour
	// backdate covers clocks a little behind (a Pi without a real-time
	// clock before NTP has caught up).
	backdate = time.Hour
)

// PKI is the cluster CA and the server's certificates, loaded or made.
type PKI struct {
	dir    string
	cfg    Config
	caCert *x509.Certificate
	caKey  *ecdsa.PrivateKey
	caPEM  []byte
	caPool *x509.CertPool // ca, ca-next and ca-previous: verifies client certificates
	// next and previous are the CAs of a rotation (bundle.go); nil when
	// there is none.
	next, previous *x509.Certificate
	serving        tls.Certificate
	admin          keyPair
	wrote          bool // a file was written: sync the directory
}

// keyPair is a certificate and its key, PEM encoded.
type keyPair struct {
	certPEM, keyPEM []byte
}

// Load reads the CA from dir, making it at first start, and makes sure the
// serving and admin certificates exist, are signed by it, are not within 90
// days of expiry and (serving) name exactly the wanted SANs; otherwise it
// issues them again.
func Load(dir string, cfg Config) (*PKI, error) {
	cfg.setDefaults()
	sans, err := parseSANs(cfg.SANs)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create tls directory: %w", err)
	}
	p := &PKI{dir: dir, cfg: cfg}
	if err := p.loadOrCreateCA(); err != nil {
		return nil, err
	}
	if err := p.loadOtherCAs(); err != nil {
		return nil, err
	}
	if err := p.ensureServing(sans); err != nil {
		return nil, err
	}
	if err := p.ensureAdmin(); err != nil {
		return nil, err
	}
	if p.wrote {
		if err := auth.SyncDir(dir); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// CACertPEM returns the CA certificate, PEM encoded.
func (p *PKI) CACertPEM() []byte { return append([]byte(nil), p.caPEM...) }

// CAPool returns the pool that verifies client certificates: the cluster
// CA and, during and after a rotation, ca-next and ca-previous (a copy;
// callers may add to it).
func (p *PKI) CAPool() *x509.CertPool { return p.caPool.Clone() }

// CAHash is the sha256 of the CA certificate's DER in lowercase hex: the
// part of a join token (K10<hash>::<id>.<secret>) an agent checks the
// server's CA against before sending anything.
func (p *PKI) CAHash() string {
	sum := sha256.Sum256(p.caCert.Raw)
	return hex.EncodeToString(sum[:])
}

// ServingTLSConfig returns a fresh TLS configuration for the API server:
// TLS 1.2 or later, the serving certificate, HTTP/2 and HTTP/1.1, and client
// certificates verified against the CA when given (VerifyClientCertIfGiven),
// so bearer tokens work too. A listener that must insist on a client
// certificate (MQTT) sets ClientAuth to tls.RequireAndVerifyClientCert.
func (p *PKI) ServingTLSConfig() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{p.serving},
		ClientAuth:   tls.VerifyClientCertIfGiven,
		ClientCAs:    p.CAPool(),
		NextProtos:   []string{"h2", "http/1.1"},
	}
}

// ServingCertificate returns the parsed serving certificate.
func (p *PKI) ServingCertificate() *x509.Certificate { return p.serving.Leaf }
