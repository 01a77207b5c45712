package join

import (
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// serving issues a server certificate for 127.0.0.1 under ca.
func (ca *testCA) serving(t testing.TB) tls.Certificate {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "server"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// A client made once trusts a server of a new CA as soon as the holder
// holds it, without being made again, and checks the address it dials.
func TestRootsSwapInPlace(t *testing.T) {
	oldCA, newCA := newTestCA(t), newTestCA(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{newCA.serving(t)}}
	srv.StartTLS()
	defer srv.Close()
	roots, err := NewRoots([]byte(oldCA.pem()))
	if err != nil {
		t.Fatal(err)
	}
	get := func(host string) error {
		tr := &http.Transport{TLSClientConfig: roots.Use(&tls.Config{}, host), DisableKeepAlives: true}
		resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get("127.0.0.1"); err == nil || !strings.Contains(err.Error(), "unknown authority") {
		t.Fatalf("server of the new CA, roots old only: got %v, want unknown authority", err)
	}
	if err := roots.Set([]byte(oldCA.pem() + newCA.pem())); err != nil {
		t.Fatal(err)
	}
	if err := get("127.0.0.1"); err != nil {
		t.Fatalf("server of the new CA, roots old+new: %v", err)
	}
	if err := get("10.0.0.9"); err == nil || !strings.Contains(err.Error(), "10.0.0.9") {
		t.Fatalf("server not naming the address dialled: got %v, want a name mismatch", err)
	}
	if err := roots.Set([]byte("junk")); err == nil || len(roots.CAs()) != 2 {
		t.Fatalf("Set(junk): got %v with %d CAs held, want an error and the roots unchanged", err, len(roots.CAs()))
	}
}

// A bundle is taken only when it holds the CA that signed the node's
// certificate; its hash ignores order and duplicates.
func TestAcceptBundle(t *testing.T) {
	oldCA, newCA, stranger := newTestCA(t), newTestCA(t), newTestCA(t)
	cert, err := parseLeaf(oldCA.issue(t, "system:node:pi", "system:nodes", newKey(t).Public()))
	if err != nil {
		t.Fatal(err)
	}
	held := []*x509.Certificate{oldCA.cert}
	if err := AcceptBundle([]*x509.Certificate{newCA.cert, oldCA.cert}, held, cert); err != nil {
		t.Errorf("bundle new+old: %v, want it taken", err)
	}
	if err := AcceptBundle([]*x509.Certificate{newCA.cert, stranger.cert}, held, cert); err == nil {
		t.Error("bundle without the node's CA: taken, want a refusal")
	}
	if err := AcceptBundle([]*x509.Certificate{oldCA.cert}, []*x509.Certificate{newCA.cert}, cert); err == nil {
		t.Error("a node trusting none of its certificate's CAs: taken, want a refusal")
	}
	a := BundleHash([]*x509.Certificate{oldCA.cert, newCA.cert})
	if b := BundleHash([]*x509.Certificate{newCA.cert, oldCA.cert, newCA.cert}); a != b {
		t.Errorf("BundleHash depends on order or duplicates: %s != %s", a, b)
	}
	if one := BundleHash(held); one != CAHash(oldCA.cert.Raw) {
		t.Errorf("BundleHash of one CA: got %s, want its CA hash %s", one, CAHash(oldCA.cert.Raw))
	}
	if !SignedByFirst([]*x509.Certificate{oldCA.cert, newCA.cert}, cert) || SignedByFirst([]*x509.Certificate{newCA.cert, oldCA.cert}, cert) {
		t.Error("SignedByFirst: wrong answer")
	}
}

// Credentials holding a bundle accept a node certificate of any CA in it.
func TestCredentialsWithBundle(t *testing.T) {
	oldCA, newCA := newTestCA(t), newTestCA(t)
	key := newKey(t)
	keyPEM, _ := encodeKey(key)
	c := &Credentials{NodeName: "pi", CertPEM: newCA.issue(t, "system:node:pi", "system:nodes", key.Public()), KeyPEM: keyPEM,
		CACertPEM: []byte(oldCA.pem())}
	if _, err := c.TLSConfig(); err == nil || !strings.Contains(err.Error(), "not signed by the cluster CA") {
		t.Fatalf("certificate of a CA not held: got %v, want a refusal", err)
	}
	c.CACertPEM = []byte(oldCA.pem() + newCA.pem())
	if _, err := c.TLSConfig(); err != nil {
		t.Fatalf("certificate of the bundle's second CA: %v", err)
	}
}

func FuzzParseBundle(f *testing.F) {
	a, b := newTestCA(f), newTestCA(f)
	f.Add([]byte(a.pem() + b.pem()))
	f.Add([]byte(a.pem() + "-----BEGIN X-----\nAAAA\n-----END X-----\n"))
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cas, err := ParseBundle(data)
		if err != nil {
			return
		}
		if len(cas) == 0 || len(cas) > maxBundleCAs {
			t.Fatalf("ParseBundle accepted %d CAs", len(cas))
		}
		for _, c := range cas {
			if !c.IsCA {
				t.Fatal("ParseBundle accepted a certificate that is not a CA")
			}
		}
		back, err := ParseBundle(EncodeBundle(cas))
		if err != nil || BundleHash(back) != BundleHash(cas) {
			t.Fatalf("EncodeBundle does not round-trip: %v", err)
		}
	})
}
