package certificates

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/pki"
	"github.com/bramble-edge/bramble/server/registry"
)

func csrPEM(t *testing.T, cn string, orgs ...string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: orgs}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

// TestSignerIssuesApprovedClientCertificates runs the signer on a real CA,
// registry and cache: an approved client request gets a certificate the
// CA verifies, with the requested subject and duration; requests for
// other usages or a node's name fail; pending ones wait.
func TestSignerIssuesApprovedClientCertificates(t *testing.T) {
	reg := newRegistry(t)
	ca, err := pki.Load(t.TempDir(), pki.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cache := informer.New(reg.Store(), informer.Config{})
	cache.Informer(csrResource)
	cache.Start(ctx)
	defer cache.Stop()
	s := &Signer{CA: ca, Client: reg.Client(), Cache: cache, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s.Start(ctx)
	defer s.Stop()

	hour := int32(3600)
	submit := func(name string, req []byte, approve bool, usages ...certificatesv1.KeyUsage) {
		csr := testCSR(t, name)
		csr.Spec.Request, csr.Spec.Usages, csr.Spec.ExpirationSeconds = req, usages, &hour
		obj, err := reg.Create(ctx, csrResource, "", csr, registry.WriteOptions{})
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		if approve {
			csr = obj.(*certificatesv1.CertificateSigningRequest)
			csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{condition(certificatesv1.CertificateApproved)}
			if _, err := reg.Update(ctx, csrResource, "", name, "approval", csr, false); err != nil {
				t.Fatalf("approve %s: %v", name, err)
			}
		}
	}
	submit("alice", csrPEM(t, "alice", "bramble:viewers"), true, certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature)
	submit("server", csrPEM(t, "web"), true, certificatesv1.UsageClientAuth, certificatesv1.UsageServerAuth)
	submit("node", csrPEM(t, "system:node:pi-1", "system:nodes"), true, certificatesv1.UsageClientAuth)
	submit("pending", csrPEM(t, "bob"), false, certificatesv1.UsageClientAuth)

	alice := waitCSR(t, reg, "alice", func(c *certificatesv1.CertificateSigningRequest) bool { return len(c.Status.Certificate) > 0 })
	block, _ := pem.Decode(alice.Status.Certificate)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: ca.CAPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Fatalf("issued certificate does not verify as a client certificate: %v", err)
	}
	if cert.Subject.CommonName != "alice" || len(cert.Subject.Organization) != 1 || cert.Subject.Organization[0] != "bramble:viewers" {
		t.Fatalf("got subject %v, want CN=alice O=bramble:viewers", cert.Subject)
	}
	if d := time.Until(cert.NotAfter); d > time.Hour || d < 50*time.Minute {
		t.Fatalf("got a certificate valid for %v more, want about the hour asked for", d)
	}
	for _, name := range []string{"server", "node"} {
		c := waitCSR(t, reg, name, func(c *certificatesv1.CertificateSigningRequest) bool {
			return api.CSRCondition(c, certificatesv1.CertificateFailed) != nil
		})
		if len(c.Status.Certificate) > 0 {
			t.Fatalf("%s: failed and issued", name)
		}
	}
	if c := getCSR(t, reg, "pending"); len(c.Status.Certificate) > 0 || len(c.Status.Conditions) > 0 {
		t.Fatalf("a pending request was acted on: %+v", c.Status)
	}
}

func getCSR(t *testing.T, reg *registry.Registry, name string) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	obj, err := reg.Get(context.Background(), csrResource, "", name)
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*certificatesv1.CertificateSigningRequest)
}

func waitCSR(t *testing.T, reg *registry.Registry, name string, done func(*certificatesv1.CertificateSigningRequest) bool) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c := getCSR(t, reg, name); done(c) {
			return c
		}
	}
	t.Fatalf("timed out waiting on csr %s: %+v", name, getCSR(t, reg, name).Status)
	return nil
}
