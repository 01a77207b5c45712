package publish

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/rbac"
)

// headerAuth stands in for the certificate authenticator (the end-to-end
// tests use the real one): the X-User header is "admin", "node:<name>",
// "viewer" or any other user name; no header is no credentials.
type headerAuth struct{}

func (headerAuth) Authenticate(r *http.Request) (*auth.User, error) {
	switch u := r.Header.Get("X-User"); {
	case u == "":
		return nil, fmt.Errorf("%w: no client certificate", auth.ErrUnauthenticated)
	case u == "admin":
		return &auth.User{Name: "admin", Groups: []string{auth.GroupMasters}, Role: auth.RoleAdmin}, nil
	case strings.HasPrefix(u, "node:"):
		node := strings.TrimPrefix(u, "node:")
		return &auth.User{Name: join.NodeUserPrefix + node, Groups: []string{join.NodeGroup}, Role: auth.RoleNode, Node: node}, nil
	case u == "viewer":
		return &auth.User{Name: u, Groups: []string{auth.GroupViewers}, Role: auth.RoleViewer}, nil
	default:
		return &auth.User{Name: u}, nil
	}
}

// viewAuthz is the API server's authorizer (RBAC, the node rules for
// nodes) with the bindings `bramble user create` makes: alice holds a
// ClusterRole that allows nodes/view, bob one that reads Nodes but not
// their views, and viewers hold view (no nodes/view).
func viewAuthz() auth.Authorizer {
	x := rbac.NewIndex()
	x.SetRole("", "relister", []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"nodes/view"}}})
	x.SetRole("", "node-reader", []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"nodes", "nodes/status"}}})
	x.SetRole("", "view", []rbacv1.PolicyRule{{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods", "nodes", "configmaps"}}})
	bind := func(user, role string) {
		ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}
		x.SetBinding("", "bramble-user:"+user, ref, []rbacv1.Subject{{Kind: "User", Name: user}})
	}
	bind("alice", "relister")
	bind("bob", "node-reader")
	bind("viewer", "view")
	return rbac.New(x, auth.NewNodeAuthorizer(nil))
}

// gatedStore holds reads of pods at a revision (a whole view's) until the
// gate opens.
type gatedStore struct {
	datastore.Store
	gate    chan struct{}
	entered chan struct{}
}

func (s *gatedStore) List(ctx context.Context, prefix string, opts datastore.ListOptions) (*datastore.ListResult, error) {
	if opts.Limit == 1 && strings.HasPrefix(prefix, registryPrefix+"core/pods/") {
		s.entered <- struct{}{}
		<-s.gate
	}
	return s.Store.List(ctx, prefix, opts)
}

func get(t testing.TB, h http.Handler, method, target, user string) (int, string) {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	if user != "" {
		r.Header.Set("X-User", user)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	body, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(body)
}

func TestViewHandlerChecksCallerAndRequest(t *testing.T) {
	store := openStore(t)
	w := writer{t, store}
	w.pod("web", "pi-1", "", "", "a")
	p := startPublisher(t, store, newRecordingBus(), Config{})
	h := p.ViewHandler(headerAuth{}, viewAuthz())
	path := mqtt.ViewPath("pi-1")
	cases := []struct {
		method, target, user string
		code                 int
		body                 string
	}{
		{"GET", path, "node:pi-1", 200, `"full":true`},
		{"GET", path + "?since=0", "admin", 200, `"name":"web"`},
		{"GET", path, "node:pi-2", 403, "may not read the view of node"},
		{"GET", path, "viewer", 403, "may not read"},
		{"GET", path, "alice", 200, `"name":"web"`},
		{"GET", mqtt.ViewPath("pi-2"), "alice", 200, `"full":true`},
		{"GET", path, "bob", 403, "bob may not read the view of node \"pi-1\""},
		{"GET", path, "", 401, "no client certificate"},
		{"GET", path + "?since=x", "node:pi-1", 400, "since: got \"x\""},
		{"GET", path + "?since=-3", "node:pi-1", 400, "since: got \"-3\""},
		{"GET", path + "?since=999999", "node:pi-1", 503, "has not reached"},
		{"POST", path, "node:pi-1", 405, "POST is not supported"},
		{"GET", mqtt.ViewPrefix + "pi-1/other", "node:pi-1", 404, "not found"},
	}
	for _, c := range cases {
		code, body := get(t, h, c.method, c.target, c.user)
		if code != c.code || !strings.Contains(body, c.body) {
			t.Errorf("%s %s as %q: got %d %q, want %d containing %q", c.method, c.target, c.user, code, body, c.code, c.body)
		}
	}
	code, body := get(t, h, "GET", path, "node:pi-1")
	if _, err := mqtt.DecodeView([]byte(body)); code != http.StatusOK || err != nil {
		t.Errorf("the answer: got %d, %v; want 200 and a View that decodes", code, err)
	}
}

func TestViewHandlerSheds(t *testing.T) {
	real := openStore(t)
	writer{t, real}.pod("web", "pi-1", "", "", "a")
	store := &gatedStore{Store: real, entered: make(chan struct{}, 1)}
	p := startPublisher(t, store, newRecordingBus(), Config{MaxViews: 1})
	store.gate = make(chan struct{}) // from here on, whole views wait
	h := p.ViewHandler(headerAuth{}, viewAuthz())
	done := make(chan int)
	go func() {
		code, _ := get(t, h, "GET", mqtt.ViewPath("pi-1"), "node:pi-1")
		done <- code
	}()
	<-store.entered // the first relist is being answered
	code, _ := get(t, h, "GET", mqtt.ViewPath("pi-1"), "node:pi-1")
	if code != http.StatusTooManyRequests {
		t.Errorf("a second relist while MaxViews (1) is answered: got %d, want 429", code)
	}
	close(store.gate)
	if code := <-done; code != http.StatusOK {
		t.Errorf("the first relist: got %d, want 200", code)
	}
}
