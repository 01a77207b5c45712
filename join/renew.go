package join

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// RenewPath takes a RenewRequest from a node authenticated by its current
// certificate and answers a Response with a new certificate for the same
// node (the old one stops working at once).
const RenewPath = "/v1-bramble/renew"

// RenewRequest is the body of POST RenewPath.
type RenewRequest struct {
	// CSR is a PEM "CERTIFICATE REQUEST" signed by the node's new key; the
	// server names the certificate after the node of the client
	// certificate the request came with.
	CSR string `json:"csr"`
}

// CertSource holds the node certificate a TLS configuration presents, so
// a renewed one is used by every later handshake of every client made
// from it. While a renewal is held (Hold), handshakes wait for it (at most
// holdWait): the server ends the old certificate's sessions as it issues
// the new one, and a client reconnecting at once should not try the old.
type CertSource struct {
	mu   sync.Mutex
	cur  *tls.Certificate
	held chan struct{} // closed when the hold ends; nil when none
}

// holdWait bounds how long a handshake waits for a held renewal.
const holdWait = 5 * time.Second

// NewCertSource returns a source presenting pair.
func NewCertSource(pair tls.Certificate) *CertSource { return &CertSource{cur: &pair} }

// Set replaces the certificate presented from now on.
func (s *CertSource) Set(pair tls.Certificate) {
	s.mu.Lock()
	s.cur = &pair
	s.mu.Unlock()
}

// Current is the certificate presented now.
func (s *CertSource) Current() *tls.Certificate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Hold makes handshakes wait until the returned release is called (after
// Set, or after a failed renewal).
func (s *CertSource) Hold() (release func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.held = ch
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.held = nil
			s.mu.Unlock()
			close(ch)
		})
	}
}

// settled is Current once no renewal is held, or after holdWait.
func (s *CertSource) settled() *tls.Certificate {
	s.mu.Lock()
	ch := s.held
	s.mu.Unlock()
	if ch != nil {
		select {
		case <-ch:
		case <-time.After(holdWait):
		}
	}
	return s.Current()
}

// Use makes cfg present the source's certificate at each handshake,
// waiting for a held renewal.
func (s *CertSource) Use(cfg *tls.Config) *tls.Config {
	cfg.Certificates = nil
	cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return s.settled(), nil }
	return cfg
}

// UseCurrent makes cfg present the source's certificate at each handshake,
// without waiting: for the client that renews.
func (s *CertSource) UseCurrent(cfg *tls.Config) *tls.Config {
	cfg.Certificates = nil
	cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return s.Current(), nil }
	return cfg
}

// Renew asks the server for a new certificate for a new key, over mutual
// TLS with c's current certificate, and returns the new credentials
// (checked like a join's answer; nothing is saved). client must present
// c's certificate; nil makes one from c.
func Renew(ctx context.Context, c *Credentials, client *http.Client) (*Credentials, error) {
	base, err := url.Parse(strings.TrimRight(c.ServerURL, "/"))
	if err != nil || base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("renew: server URL %q: want https://host:port", c.ServerURL)
	}
	if client == nil {
		if client, err = credentialsClient(c); err != nil {
			return nil, err
		}
		defer client.CloseIdleConnections()
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("renew: generate node key: %w", err)
	}
	csrPEM, err := makeCSR(c.NodeName, key)
	if err != nil {
		return nil, err
	}
	resp, err := postRenew(ctx, client, base, RenewRequest{CSR: string(csrPEM)})
	if err != nil {
		return nil, err
	}
	trusted, err := ParseBundle(c.CACertPEM)
	if err != nil {
		return nil, fmt.Errorf("renew: CA certificate: %w", err)
	}
	next, err := credentialsFrom(resp, trusted, base, c.NodeName, key)
	if err != nil {
		return nil, err
	}
	next.ServerURL, next.MQTTAddresses = c.ServerURL, c.MQTTAddresses
	if len(resp.MQTTAddresses) > 0 {
		next.MQTTAddresses = resp.MQTTAddresses
	}
	return next, nil
}

// credentialsClient is an HTTP client presenting c's certificate.
func credentialsClient(c *Credentials) (*http.Client, error) {
	tc, err := c.TLSConfig()
	if err != nil {
		return nil, fmt.Errorf("renew: %w", err)
	}
	return &http.Client{Timeout: defaultTimeout, Transport: &http.Transport{TLSClientConfig: tc}}, nil
}

func postRenew(ctx context.Context, client *http.Client, base *url.URL, rr RenewRequest) (*Response, error) {
	body, err := json.Marshal(rr)
	if err != nil {
		return nil, fmt.Errorf("renew: encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, defaultTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.String()+RenewPath, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("renew: POST %s: %w", RenewPath, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("renew: POST %s: %w", RenewPath, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("renew: read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("renew: %w", statusFailure(resp.StatusCode, data))
	}
	return decodeResponse(data)
}

// RenewAt is when a certificate valid from notBefore to notAfter is due
// for renewal: once less than a third of its life is left.
func RenewAt(notBefore, notAfter time.Time) time.Time {
	return notBefore.Add(notAfter.Sub(notBefore) * 2 / 3)
}
