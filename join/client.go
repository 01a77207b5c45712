package join

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// JoinConfig says where and how to join. ServerURL, Token and NodeName are
// required.
type JoinConfig struct {
	ServerURL string // https://host:6443
	Token     string // K10<CA hash>::<id>.<secret>
	NodeName  string
	// Key is the node's private key; nil makes a new ECDSA P-256 key.
	Key crypto.Signer
	// NodePassword proves the node is the one that first joined under
	// NodeName (LoadOrCreateNodePassword); empty draws a new one, which
	// only a first join under the name accepts. It ends up in the
	// Credentials.
	NodePassword string
	// Timeout bounds each of the two requests; default 30s.
	Timeout time.Duration
}

// Limits on what the server may send back.
const (
	maxCABytes       = 64 << 10
	maxResponseBytes = 256 << 10
	defaultTimeout   = 30 * time.Second
)

// Join trades the token for node credentials:
//
//  1. GET /cacerts without trusting the server's certificate, and compare
//     the sha256 of the CA it answers with the token's hash. A mismatch ends
//     the join (ErrCAHashMismatch) before the secret is sent anywhere.
//  2. Trusting that CA only, POST the token id and secret, the node name and
//     a CSR for the node's key to /v1-bramble/join, and check the answer:
//     the certificate must be for this key and name and signed by that CA.
//
// Errors are *Error values whose Kind is one of the Err* sentinels
// (ErrMalformedToken for a token that does not parse).
func Join(ctx context.Context, cfg JoinConfig) (*Credentials, error) {
	tok, base, err := checkConfig(&cfg)
	if err != nil {
		return nil, err
	}
	ca, err := fetchCA(ctx, base, tok, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	key := cfg.Key
	if key == nil {
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return nil, fmt.Errorf("join: generate node key: %w", err)
		}
	}
	csrPEM, err := makeCSR(cfg.NodeName, key)
	if err != nil {
		return nil, err
	}
	req := Request{TokenID: tok.ID, Secret: tok.Secret, NodeName: cfg.NodeName, CSR: string(csrPEM),
		NodePassword: cfg.NodePassword}
	resp, err := postJoin(ctx, base, ca, req, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	creds, err := credentialsFrom(resp, []*x509.Certificate{ca}, base, cfg.NodeName, key)
	if err != nil {
		return nil, err
	}
	creds.NodePassword = cfg.NodePassword
	return creds, nil
}

func checkConfig(cfg *JoinConfig) (Token, *url.URL, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	tok, err := ParseToken(cfg.Token)
	if err != nil {
		return Token{}, nil, &Error{Kind: ErrMalformedToken, Msg: "join: " + err.Error()}
	}
	if err := ValidateNodeName(cfg.NodeName); err != nil {
		return Token{}, nil, joinError(ErrInvalidNodeName, "%v", err)
	}
	if cfg.NodePassword == "" {
		if cfg.NodePassword, err = NewNodePassword(); err != nil {
			return Token{}, nil, joinError(ErrRejected, "%v", err)
		}
	} else if err := CheckNodePassword(cfg.NodePassword); err != nil {
		return Token{}, nil, joinError(ErrRejected, "node password: %v", err)
	}
	base, err := url.Parse(strings.TrimRight(cfg.ServerURL, "/"))
	if err != nil || base.Scheme != "https" || base.Host == "" || base.RawQuery != "" {
		return Token{}, nil, joinError(ErrRejected, "server URL %q: want https://host:port", cfg.ServerURL)
	}
	return tok, base, nil
}

// newClient returns an HTTP client trusting only roots, or, with roots nil,
// trusting nothing it is shown (used for /cacerts alone).
func newClient(roots *x509.CertPool, timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots}
	if roots == nil {
		tr.TLSClientConfig.InsecureSkipVerify = true // checked against the token's hash instead
	}
	// No redirects: the secret goes to the server named, nowhere else.
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &http.Client{Timeout: timeout, Transport: tr, CheckRedirect: noRedirect}
}

// fetchCA gets the server's CA unverified and checks it against the token.
func fetchCA(ctx context.Context, base *url.URL, tok Token, timeout time.Duration) (*x509.Certificate, error) {
	client := newClient(nil, timeout)
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.String()+CACertsPath, nil)
	if err != nil {
		return nil, joinError(ErrRejected, "GET %s: %v", CACertsPath, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, joinError(ErrRejected, "fetch the server's CA certificate: %v", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxCABytes+1))
	if err != nil {
		return nil, joinError(ErrRejected, "read the server's CA certificate: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, joinError(ErrRejected, "GET %s: server answered %s", CACertsPath, resp.Status)
	}
	ca, err := parseCAPEM(data)
	if err != nil {
		return nil, joinError(ErrRejected, "the server's CA certificate: %v", err)
	}
	if got := CAHash(ca.Raw); got != tok.CAHash {
		return nil, joinError(ErrCAHashMismatch,
			"the server's CA certificate does not match the token's CA hash (token expects sha256 %s, server has %s): wrong server or wrong token",
			tok.CAHash, got)
	}
	return ca, nil
}

// parseCAPEM decodes the first CERTIFICATE block of data, which must be a
// CA certificate.
func parseCAPEM(data []byte) (*x509.Certificate, error) {
	if len(data) > maxCABytes {
		return nil, fmt.Errorf("more than %d bytes", maxCABytes)
	}
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, errors.New("no PEM CERTIFICATE block")
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		if !cert.IsCA {
			return nil, fmt.Errorf("%q is not a CA certificate", cert.Subject.CommonName)
		}
		return cert, nil
	}
}

func makeCSR(node string, key crypto.Signer) ([]byte, error) {
	tmpl := &x509.CertificateRequest{Subject: pkix.Name{CommonName: NodeUserPrefix + node, Organization: []string{NodeGroup}}}
	der, err := x509.CreateCertificateRequest(rand.Reader, tmpl, key)
	if err != nil {
		return nil, fmt.Errorf("join: make certificate request: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}), nil
}

// postJoin sends the join request to a server that must prove it holds a
// certificate from ca, and decodes the answer.
func postJoin(ctx context.Context, base *url.URL, ca *x509.Certificate, jr Request, timeout time.Duration) (*Response, error) {
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	client := newClient(roots, timeout)
	defer client.CloseIdleConnections()
	body, err := json.Marshal(jr)
	if err != nil {
		return nil, fmt.Errorf("join: encode request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.String()+JoinPath, bytes.NewReader(body))
	if err != nil {
		return nil, joinError(ErrRejected, "POST %s: %v", JoinPath, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, joinError(ErrRejected, "POST %s: %v", JoinPath, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, joinError(ErrRejected, "read join answer: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, statusFailure(resp.StatusCode, data)
	}
	return decodeResponse(data)
}
