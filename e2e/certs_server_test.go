package e2e

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestServerRenewsCertificatesAtStart: a server whose serving and admin
// certificates expire within 90 days issues new ones at its next start
// (k3s's rule), under the same CA, and the rewritten admin kubeconfig
// works; `bramble certificate rotate --service api-server` makes the next
// start issue a new serving certificate and leaves the admin one alone.
func TestServerRenewsCertificatesAtStart(t *testing.T) {
	s := cluster.StartServer(t)
	tlsDir := filepath.Join(s.DataDir, "server", "tls")
	s.Stop()
	for _, name := range []string{"serving", "client-admin"} {
		shortenCert(t, tlsDir, name, 30*24*time.Hour)
	}
	s.Start()
	serving := servedCert(t, s)
	if left := time.Until(serving.NotAfter); left < 300*24*time.Hour {
		t.Errorf("serving certificate after a start with 30 days left: %s left, want it renewed for a year", left.Round(time.Hour))
	}
	admin := readCert(t, filepath.Join(tlsDir, "client-admin.crt"))
	if left := time.Until(admin.NotAfter); left < 300*24*time.Hour {
		t.Errorf("admin certificate after a start with 30 days left: %s left, want it renewed", left.Round(time.Hour))
	}
	s.MustKubectl("get", "namespaces") // the kubeconfig holds the new admin certificate
	s.Stop()
	out := cluster.MustRun(t, cluster.Bin, "certificate", "rotate", "--data-dir", s.DataDir, "--service", "api-server")
	t.Logf("bramble certificate rotate: %s", out)
	s.Start()
	if got := servedCert(t, s); got.SerialNumber.Cmp(serving.SerialNumber) == 0 {
		t.Error("serving certificate unchanged after certificate rotate --service api-server")
	}
	if got := readCert(t, filepath.Join(tlsDir, "client-admin.crt")); got.SerialNumber.Cmp(admin.SerialNumber) != 0 {
		t.Error("admin certificate changed by a rotation of api-server only")
	}
	s.MustKubectl("get", "namespaces")
}

// shortenCert reissues <name>.crt in dir for the same key and names, to
// expire in left, signed with the cluster CA's key.
func shortenCert(t *testing.T, dir, name string, left time.Duration) {
	t.Helper()
	ca := readCert(t, filepath.Join(dir, "ca.crt"))
	raw, err := os.ReadFile(filepath.Join(dir, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	caKey, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := readCert(t, filepath.Join(dir, name+".crt"))
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	tmpl.NotAfter = time.Now().Add(left)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, tmpl.PublicKey.(*ecdsa.PublicKey), caKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		t.Fatalf("%s: no PEM block", path)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// servedCert is the certificate the server presents on its HTTPS port.
func servedCert(t *testing.T, s *cluster.Server) *x509.Certificate {
	t.Helper()
	conn, err := tls.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.Port), &tls.Config{InsecureSkipVerify: true}) // only reading it
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}
