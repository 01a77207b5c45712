package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/auth"
)

// Test identities: bearer token -> user.
var testUsers = map[string]*auth.User{
	"admin-token":  {Name: "admin", Groups: []string{"system:masters"}, Role: auth.RoleAdmin},
	"viewer-token": {Name: "alice", Role: auth.RoleViewer},
}

// tokenAuthn is the test seam for authentication: fixed bearer tokens.
type tokenAuthn struct{}

func (tokenAuthn) Authenticate(r *http.Request) (*auth.User, error) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, fmt.Errorf("%w: no bearer token", auth.ErrUnauthenticated)
	}
	if u, ok := testUsers[tok]; ok {
		return u, nil
	}
	return nil, fmt.Errorf("%w: unknown token", auth.ErrUnauthenticated)
}

// roleAuthz is the test seam for authorization: admins do anything,
// viewers only read.
type roleAuthz struct{}

func (roleAuthz) Authorize(_ context.Context, u *auth.User, attrs auth.Attributes) error {
	switch {
	case u.Role == auth.RoleAdmin:
		return nil
	case u.Role == auth.RoleViewer && (attrs.Verb == "get" || attrs.Verb == "list" || attrs.Verb == "watch"):
		return nil
	}
	return fmt.Errorf("%w: user %q may not %s %s", auth.ErrForbidden, u.Name, attrs.Verb, attrs.Resource)
}

// testEnv is the API behind a real TLS server on a real SQLite store.
type testEnv struct {
	t      testing.TB
	store  *datastore.SQLite
	api    *API
	srv    *httptest.Server
	client *http.Client
}

// wantCache stands in APIConfig.Cache for the cache newTestEnv makes once
// the tunes have run.
var wantCache = &informer.Cache{}

func newTestEnv(t testing.TB, tune ...func(*APIConfig)) *testEnv {
	t.Helper()
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"),
		datastore.SQLiteConfig{Logger: quiet, CompactInterval: -1})
	if err != nil {
		t.Fatalf("open datastore: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	// The shared cache as the server runs it (on the store a tune may wrap),
	// so that every test's lists and watches go through it.
	cfg := APIConfig{Store: store, Cache: wantCache, Authn: tokenAuthn{}, Authz: roleAuthz{}, Log: quiet}
	for _, f := range tune {
		f(&cfg)
	}
	if cfg.Cache == wantCache { // a tune may have set it to nil: no cache

		cfg.Cache = informer.New(cfg.Store, informer.Config{Logger: quiet})
		for _, res := range api.All() {
			cfg.Cache.Informer(res)
		}
		cctx, cancel := context.WithCancel(ctx)
		cfg.Cache.Start(cctx)
		t.Cleanup(func() { cancel(); cfg.Cache.Stop() }) // runs before the store closes
	}
	a, err := NewAPI(ctx, cfg)
	if err != nil {
		t.Fatalf("NewAPI: %v", err)
	}
	srv := httptest.NewUnstartedServer(a)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return &testEnv{t: t, store: store, api: a, srv: srv, client: srv.Client()}
}

// result is a finished response.
type result struct {
	code   int
	header http.Header
	body   []byte
}

// req describes a request; zero fields get defaults (admin token, JSON).
type req struct {
	method, path string
	body         any // nil, []byte, string, or a value to encode as JSON
	contentType  string
	accept       string
	token        string
}

func (e *testEnv) do(rq req) *result {
	e.t.Helper()
	hr, err := http.NewRequest(rq.method, e.srv.URL+rq.path, bodyReader(e.t, rq.body))
	if err != nil {
		e.t.Fatalf("build request: %v", err)
	}
	if rq.body != nil {
		hr.Header.Set("Content-Type", pick(rq.contentType == "", "application/json", rq.contentType))
	}
	if rq.accept != "" {
		hr.Header.Set("Accept", rq.accept)
	}
	switch rq.token {
	case "":
		hr.Header.Set("Authorization", "Bearer admin-token")
	case "none":
	default:
		hr.Header.Set("Authorization", "Bearer "+rq.token)
	}
	resp, err := e.client.Do(hr)
	if err != nil {
		e.t.Fatalf("%s %s: %v", rq.method, rq.path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("%s %s: read body: %v", rq.method, rq.path, err)
	}
	return &result{code: resp.StatusCode, header: resp.Header, body: data}
}

func bodyReader(t testing.TB, body any) io.Reader {
	t.Helper()
	switch b := body.(type) {
	case nil:
		return nil
	case []byte:
		return bytes.NewReader(b)
	case string:
		return strings.NewReader(b)
	}
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatalf("encode request body: %v", err)
	}
	return bytes.NewReader(data)
}

// Shorthands for the common verbs.
func (e *testEnv) get(path string) *result { return e.do(req{method: "GET", path: path}) }
func (e *testEnv) post(path string, body any) *result {
	return e.do(req{method: "POST", path: path, body: body})
}
func (e *testEnv) put(path string, body any) *result {
	return e.do(req{method: "PUT", path: path, body: body})
}
func (e *testEnv) patch(path, contentType string, body any) *result {
	return e.do(req{method: "PATCH", path: path, body: body, contentType: contentType})
}
func (e *testEnv) delete(path string) *result { return e.do(req{method: "DELETE", path: path}) }

// must fails the test unless the response has code.
func (r *result) must(t testing.TB, code int) *result {
	t.Helper()
	if r.code != code {
		t.Fatalf("got HTTP %d, want %d; body: %s", r.code, code, r.body)
	}
	return r
}

// into decodes the body into v.
func (r *result) into(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode response %s: %v", r.body, err)
	}
}

// obj decodes the body as a generic JSON object.
func (r *result) obj(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.into(t, &m)
	return m
}

// status decodes the body as a Status and checks its code and reason.
func (r *result) status(t testing.TB, code int, reason metav1.StatusReason) metav1.Status {
	t.Helper()
	r.must(t, code)
	var st metav1.Status
	r.into(t, &st)
	if st.Kind != "Status" || st.APIVersion != "v1" || st.Code != int32(code) || st.Reason != reason {
		t.Fatalf("got Status kind=%q apiVersion=%q code=%d reason=%q, want Status v1 %d %q; body %s",
			st.Kind, st.APIVersion, st.Code, st.Reason, code, reason, r.body)
	}
	if r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("got Content-Type %q, want application/json", r.header.Get("Content-Type"))
	}
	return st
}

// field walks a dotted path through a decoded JSON object.
func jget(m map[string]any, path string) any {
	var cur any = m
	for _, p := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

// cmJSON is a ConfigMap manifest.
func cmJSON(name string, data map[string]string, labels map[string]string) map[string]any {
	md := map[string]any{"name": name}
	if labels != nil {
		md["labels"] = labels
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data}
}

const cmPath = "/api/v1/namespaces/default/configmaps"

// tableAccept is what kubectl get sends.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }
