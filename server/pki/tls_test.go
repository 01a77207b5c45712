package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// startTLS serves, over the PKI's serving TLS configuration, the CN of the
// verified client certificate ("-" when none).
func startTLS(t testing.TB, p *PKI) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cn := "-"
		if len(r.TLS.VerifiedChains) > 0 {
			cn = r.TLS.VerifiedChains[0][0].Subject.CommonName
		}
		fmt.Fprintf(w, "%s %s", r.Proto, cn)
	}))
	srv.TLS = p.ServingTLSConfig()
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func get(t testing.TB, url string, cfg *tls.Config) (string, error) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}}
	defer c.CloseIdleConnections()
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	buf := make([]byte, 256)
	n, _ := resp.Body.Read(buf)
	return string(buf[:n]), nil
}

func TestServingTLSWithAndWithoutClientCert(t *testing.T) {
	p := mustLoad(t, t.TempDir(), testConfig(time.Now()))
	srv := startTLS(t, p)
	url := srv.URL // https://127.0.0.1:port, an IP SAN of the serving certificate

	certPEM, keyPEM := p.AdminCertPEM()
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	withCert := &tls.Config{RootCAs: p.CAPool(), Certificates: []tls.Certificate{pair}}
	if got, err := get(t, url, withCert); err != nil || got != "HTTP/2.0 admin" {
		t.Errorf("with admin certificate: got %q, %v; want \"HTTP/2.0 admin\"", got, err)
	}
	if got, err := get(t, url, &tls.Config{RootCAs: p.CAPool()}); err != nil || got != "HTTP/2.0 -" {
		t.Errorf("without certificate: got %q, %v; want \"HTTP/2.0 -\"", got, err)
	}

	other := mustLoad(t, t.TempDir(), testConfig(time.Now()))
	certPEM, keyPEM = other.AdminCertPEM()
	foreign, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	// Go's client sends a certificate only when its issuer's name is among
	// the CAs the server asks for. Both test CAs are named after the second
	// they were made in, so the foreign certificate is either sent and
	// refused, or not sent and the request is anonymous: never admin.
	got, err := get(t, url, &tls.Config{RootCAs: p.CAPool(), Certificates: []tls.Certificate{foreign}})
	if err == nil && got != "HTTP/2.0 -" {
		t.Errorf("with a certificate of another CA: got %q, want the handshake refused or an anonymous request", got)
	}
	_, err = get(t, url, &tls.Config{RootCAs: other.CAPool()})
	if err == nil {
		t.Error("client trusting another CA: got nil error, want an unknown authority error")
	}
}

func newCSR(t testing.TB, cn string) (*x509.CertificateRequest, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader,
		&x509.CertificateRequest{Subject: pkix.Name{CommonName: cn}}, key)
	if err != nil {
		t.Fatal(err)
	}
	csr, err := x509.ParseCertificateRequest(der)
	if err != nil {
		t.Fatal(err)
	}
	return csr, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func TestSignClientCertSetsIdentityFromCaller(t *testing.T) {
	p := mustLoad(t, t.TempDir(), testConfig(time.Now()))
	csr, _ := newCSR(t, "admin") // a requester may ask for anything
	certPEM, err := p.SignClientCert(csr, "system:node:pi-1", []string{"system:nodes"}, 24*time.Hour)
	if err != nil {
		t.Fatalf("SignClientCert: %v", err)
	}
	c, err := parseCertPEM(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject.CommonName != "system:node:pi-1" || !slices.Equal(c.Subject.Organization, []string{"system:nodes"}) {
		t.Errorf("subject: got CN=%q O=%v, want CN=system:node:pi-1 O=[system:nodes]", c.Subject.CommonName, c.Subject.Organization)
	}
	if _, err := c.Verify(x509.VerifyOptions{Roots: p.CAPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("verify node certificate: %v", err)
	}
	if _, err := c.Verify(x509.VerifyOptions{Roots: p.CAPool()}); err == nil {
		t.Error("verify node certificate for server auth: got nil error, want a key usage error")
	}
	if got := c.NotAfter.Sub(c.NotBefore); got != 25*time.Hour {
		t.Errorf("validity: got %v, want 25h (24h plus 1h backdating)", got)
	}
	if !c.PublicKey.(*ecdsa.PublicKey).Equal(csr.PublicKey) {
		t.Error("certificate key differs from the CSR's")
	}

	csr.Signature[len(csr.Signature)-1] ^= 0xff
	if _, err := p.SignClientCert(csr, "system:node:pi-1", nil, 0); err == nil {
		t.Error("SignClientCert with a broken CSR signature: got nil error, want refusal")
	}
}

func TestNewClientCertClampsToCA(t *testing.T) {
	p := mustLoad(t, t.TempDir(), testConfig(time.Now()))
	certPEM, keyPEM, err := p.NewClientCert("alice", []string{"bramble:viewers"}, 20*365*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatalf("key pair: %v", err)
	}
	if got, want := pair.Leaf.NotAfter, p.caCert.NotAfter; !got.Equal(want) {
		t.Errorf("NotAfter: got %v, want the CA's %v", got, want)
	}
}

func TestParseCSRPEM(t *testing.T) {
	want, pemBytes := newCSR(t, "x")
	got, err := ParseCSRPEM(pemBytes)
	if err != nil || !got.PublicKey.(*ecdsa.PublicKey).Equal(want.PublicKey) {
		t.Fatalf("ParseCSRPEM: got %v, want the CSR back", err)
	}
	for name, in := range map[string][]byte{
		"empty":      nil,
		"wrong type": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: want.Raw}),
		"garbage":    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: []byte("xx")}),
		"too big":    make([]byte, maxCSRBytes+1),
	} {
		if _, err := ParseCSRPEM(in); err == nil {
			t.Errorf("%s: got nil error, want refusal", name)
		}
	}
}

func FuzzParseCSRPEM(f *testing.F) {
	_, good := newCSR(f, "system:node:pi-1")
	f.Add(good)
	f.Add([]byte("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		csr, err := ParseCSRPEM(data)
		if err == nil && csr.CheckSignature() != nil {
			t.Fatal("accepted a CSR whose signature does not verify")
		}
	})
}
