package join_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/join"
)

func csrPEM(t testing.TB, key crypto.Signer) string {
	t.Helper()
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
}

func requestJSON(t testing.TB, r nodejoin.Request) string {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestDecodeJoinRequest(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ec224, _ := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	rsa1024, _ := rsa.GenerateKey(rand.Reader, 1024)
	secret := strings.Repeat("s", nodejoin.SecretLen)
	good := nodejoin.Request{TokenID: "abc123", Secret: secret, NodeName: "pi-1", CSR: csrPEM(t, ec),
		NodePassword: strings.Repeat("p", nodejoin.MinNodePasswordLen)}
	with := func(f func(*nodejoin.Request)) string {
		r := good
		f(&r)
		return requestJSON(t, r)
	}
	tests := []struct {
		name, body string
		kind       error
		want       string
	}{
		{"good", requestJSON(t, good), nil, ""},
		{"ed25519 key", with(func(r *nodejoin.Request) { r.CSR = csrPEM(t, ed) }), nil, ""},
		{"empty body", "", nodejoin.ErrRejected, "request body"},
		{"array", "[]", nodejoin.ErrRejected, "request body"},
		{"null", "null", nodejoin.ErrRejected, "tokenID: required"},
		{"trailing data", requestJSON(t, good) + "{}", nodejoin.ErrRejected, "request body"},
		{"unknown field", `{"tokenID":"abc123","extra":1}`, nodejoin.ErrRejected, `unknown field "extra"`},
		{"duplicate field", `{"tokenID":"abc123","tokenID":"abc124"}`, nodejoin.ErrRejected, `duplicate field "tokenID"`},
		{"wrong case", `{"TokenID":"abc123"}`, nodejoin.ErrRejected, `unknown field "TokenID"`},
		{"wrong type", `{"tokenID":5}`, nodejoin.ErrRejected, "request body"},
		{"bad id", with(func(r *nodejoin.Request) { r.TokenID = "ABC123" }), nodejoin.ErrRejected, `tokenID "ABC123": want 6 lowercase letters or digits`},
		{"no secret", with(func(r *nodejoin.Request) { r.Secret = "" }), nodejoin.ErrRejected, "secret: required"},
		{"bad secret", with(func(r *nodejoin.Request) { r.Secret = "short" }), nodejoin.ErrRejected, "secret: want 32 lowercase letters or digits"},
		{"no node", with(func(r *nodejoin.Request) { r.NodeName = "" }), nodejoin.ErrInvalidNodeName, "nodeName: required"},
		{"bad node", with(func(r *nodejoin.Request) { r.NodeName = "pi 1" }), nodejoin.ErrInvalidNodeName, `node name "pi 1"`},
		{"no node password", with(func(r *nodejoin.Request) { r.NodePassword = "" }), nodejoin.ErrRejected, "nodePassword: required"},
		{"short node password", with(func(r *nodejoin.Request) { r.NodePassword = "abc" }), nodejoin.ErrRejected, "nodePassword: 3 characters"},
		{"node password with space", with(func(r *nodejoin.Request) { r.NodePassword = strings.Repeat("p ", 20) }), nodejoin.ErrRejected, "nodePassword: character 2"},
		{"node name too long for its password", with(func(r *nodejoin.Request) { r.NodeName = strings.Repeat("a", 240) }), nodejoin.ErrInvalidNodeName, "at most 231"},
		{"no csr", with(func(r *nodejoin.Request) { r.CSR = "" }), nodejoin.ErrRejected, "csr: required"},
		{"csr not PEM", with(func(r *nodejoin.Request) { r.CSR = "hello" }), nodejoin.ErrRejected, "csr: certificate request: no PEM block"},
		{"P-224 key", with(func(r *nodejoin.Request) { r.CSR = csrPEM(t, ec224) }), nodejoin.ErrRejected, "csr: ECDSA curve P-224"},
		{"small RSA key", with(func(r *nodejoin.Request) { r.CSR = csrPEM(t, rsa1024) }), nodejoin.ErrRejected, "csr: RSA key of 1024 bits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, csr, err := join.DecodeJoinRequest([]byte(tc.body))
			if tc.kind == nil {
				if err != nil || req.NodeName != "pi-1" || csr == nil {
					t.Fatalf("got %+v, %v, %v; want the request and its CSR", req, csr, err)
				}
				return
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error of kind %v containing %q", err, tc.kind, tc.want)
			}
		})
	}
}

func FuzzDecodeJoinRequest(f *testing.F) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	good := nodejoin.Request{TokenID: "abc123", Secret: strings.Repeat("s", nodejoin.SecretLen), NodeName: "pi-1", CSR: csrPEM(f, key),
		NodePassword: strings.Repeat("p", nodejoin.MinNodePasswordLen)}
	f.Add([]byte(requestJSON(f, good)))
	f.Add([]byte(`{"tokenID":"abc123","secret":"x","nodeName":"Pi","csr":""}`))
	f.Add([]byte(`{"tokenID":"abc123","tokenID":"x"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"csr":"-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, csr, err := join.DecodeJoinRequest(data)
		if err != nil {
			var je *nodejoin.Error
			if !errors.As(err, &je) || (je.Kind != nodejoin.ErrRejected && je.Kind != nodejoin.ErrInvalidNodeName) {
				t.Fatalf("error %v is not a *nodejoin.Error of kind ErrRejected or ErrInvalidNodeName", err)
			}
			return
		}
		if nodejoin.CheckID(req.TokenID) != nil || nodejoin.CheckSecret(req.Secret) != nil ||
			nodejoin.ValidateNodeName(req.NodeName) != nil || nodejoin.CheckNodePassword(req.NodePassword) != nil ||
			csr == nil || csr.CheckSignature() != nil {
			t.Fatalf("accepted a request that does not check out: %+v", req)
		}
	})
}
