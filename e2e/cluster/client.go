package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// kubeconfig is the part of a kubeconfig file the tests read.
type kubeconfig struct {
	Clusters []struct {
		Cluster struct {
			Server string `json:"server"`
			CAData string `json:"certificate-authority-data"`
		} `json:"cluster"`
	} `json:"clusters"`
	Users []struct {
		User struct {
			CertData string `json:"client-certificate-data"`
			KeyData  string `json:"client-key-data"`
			Token    string `json:"token"`
		} `json:"user"`
	} `json:"users"`
}

// Client is a raw HTTPS client holding a kubeconfig's credentials, for the
// requests kubectl cannot make (stale resourceVersions, broken bodies).
type Client struct {
	t     testing.TB
	base  string
	http  *http.Client
	token string
}

// NewClient reads path and returns a client for its first cluster and user.
func NewClient(t testing.TB, path string) *Client {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kc kubeconfig
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		t.Fatalf("parse kubeconfig %s: %v", path, err)
	}
	if len(kc.Clusters) == 0 || len(kc.Users) == 0 {
		t.Fatalf("kubeconfig %s has no cluster or user", path)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(mustB64(t, kc.Clusters[0].Cluster.CAData)) {
		t.Fatalf("kubeconfig %s: no CA certificate", path)
	}
	tc := &tls.Config{RootCAs: pool}
	u := kc.Users[0].User
	if u.CertData != "" {
		cert, err := tls.X509KeyPair(mustB64(t, u.CertData), mustB64(t, u.KeyData))
		if err != nil {
			t.Fatal(err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return &Client{t: t, base: kc.Clusters[0].Cluster.Server, token: u.Token,
		http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}}
}

func mustB64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("kubeconfig base64: %v", err)
	}
	return b
}

// Response is a finished request.
type Response struct {
	Code   int
	Body   []byte
	Header http.Header
}

// Do sends one request; body may be nil.
func (c *Client) Do(method, path, contentType string, body []byte) *Response {
	c.t.Helper()
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return c.DoHeader(method, path, h, body)
}

// DoHeader sends one request with the given headers; body may be nil. A
// request that sets Accept-Encoding gets its body back as sent.
func (c *Client) DoHeader(method, path string, header http.Header, body []byte) *Response {
	c.t.Helper()
	r, err := c.Try(method, path, header, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// Try is DoHeader returning a failed request's error (a server killed
// under load) instead of failing the test.
func (c *Client) Try(method, path string, header http.Header, body []byte) (*Response, error) {
	var rd io.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	return &Response{Code: resp.StatusCode, Body: b, Header: resp.Header}, nil
}

// Status decodes a metav1.Status body (the fields the tests check).
func (r *Response) Status(t testing.TB) (kind, reason, message string) {
	t.Helper()
	var st struct {
		Kind    string `json:"kind"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
		Code    int    `json:"code"`
	}
	if err := json.Unmarshal(r.Body, &st); err != nil {
		t.Fatalf("response %d is not a Status: %v: %s", r.Code, err, r.Body)
	}
	if st.Code != r.Code {
		t.Errorf("Status.code %d, HTTP code %d", st.Code, r.Code)
	}
	return st.Kind, st.Reason, st.Message
}

// Object decodes a JSON body into a generic map.
func (r *Response) Object(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("decode %d body: %v: %s", r.Code, err, r.Body)
	}
	return m
}

// Field walks a decoded object: field(obj, "metadata", "resourceVersion").
func Field(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// NewAnonymous is a client that trusts the server's CA but presents no
// credentials.
func NewAnonymous(t testing.TB, s *Server) *Client {
	t.Helper()
	c := NewClient(t, s.Kubeconfig)
	tr := c.http.Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.Certificates = nil
	return &Client{t: t, base: c.base, http: &http.Client{Timeout: 30 * time.Second, Transport: tr}}
}

// NewClientTLS is a client for base that presents what tc holds (a node's
// certificate, say).
func NewClientTLS(t testing.TB, base string, tc *tls.Config) *Client {
	t.Helper()
	return &Client{t: t, base: base, http: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: tc}}}
}

// WatchEvent is one event of a watch stream.
type WatchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// Watch opens a watch (path must carry watch=1) and delivers its events
// until the test ends or the server closes the stream; the channel is
// then closed.
func (c *Client) Watch(path string) <-chan WatchEvent {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	stream := &http.Client{Transport: c.http.Transport} // no timeout: the stream lasts
	resp, err := stream.Do(req)
	if err != nil {
		c.t.Fatalf("watch %s: %v", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		c.t.Fatalf("watch %s: status %d", path, resp.StatusCode)
	}
	c.t.Cleanup(func() { resp.Body.Close() })
	out := make(chan WatchEvent, 256)
	go func() {
		defer close(out)
		dec := json.NewDecoder(resp.Body)
		for {
			var ev WatchEvent
			if dec.Decode(&ev) != nil {
				return
			}
			out <- ev
		}
	}()
	return out
}

// TLS is the client's TLS configuration (its kubeconfig's CA and
// certificate), for connections it does not make itself (WebSocket).
func (c *Client) TLS() *tls.Config { return c.http.Transport.(*http.Transport).TLSClientConfig }

// Base is the server URL of the kubeconfig.
func (c *Client) Base() string { return c.base }
