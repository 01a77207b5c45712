package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/bramble-edge/bramble/join"
)

// fakeGraph answers NodeGraph questions from maps.
type fakeGraph struct {
	pods map[string]string // "ns/name" -> node ("" unbound)
	refs map[string]string // "resource/ns/name" -> node whose pod references it
	err  error
}

func (g *fakeGraph) PodNode(_ context.Context, ns, name string) (string, error) {
	if g.err != nil {
		return "", g.err
	}
	node, ok := g.pods[ns+"/"+name]
	if !ok {
		return "", errors.New("not found")
	}
	return node, nil
}

func (g *fakeGraph) NodeReferences(_ context.Context, node, resource, ns, name string) (bool, error) {
	if g.err != nil {
		return false, g.err
	}
	return g.refs[resource+"/"+ns+"/"+name] == node, nil
}

var (
	admin  = &User{Name: "admin", Groups: []string{GroupMasters}, Role: RoleAdmin}
	viewer = &User{Name: "alice", Groups: []string{GroupViewers}, Role: RoleViewer}
	node1  = &User{Name: "system:node:pi-1", Groups: []string{join.NodeGroup}, Role: RoleNode, Node: "pi-1"}
)

func testGraph() *fakeGraph {
	return &fakeGraph{
		pods: map[string]string{"default/web-1": "pi-1", "default/web-2": "pi-2", "default/pending": ""},
		refs: map[string]string{
			"secrets/default/db": "pi-1", "configmaps/default/conf": "pi-1",
			"secrets/default/other": "pi-2", "configmaps/default/conf2": "pi-2",
		},
	}
}

// res builds resource attributes: group, resource/subresource, namespace, name.
func res(verb, group, resource, sub, ns, name string) Attributes {
	return Attributes{Verb: verb, Group: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func sel(a Attributes, fieldSelector string) Attributes { a.FieldSelector = fieldSelector; return a }

func path(verb, p string) Attributes { return Attributes{Verb: verb, NonResourcePath: p} }

type authzCase struct {
	name  string
	user  *User
	attrs Attributes
	allow bool
}

func runAuthz(t *testing.T, az Authorizer, cases []authzCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := az.Authorize(context.Background(), tc.user, tc.attrs)
			if tc.allow && err != nil {
				t.Fatalf("got %v, want allowed", err)
			}
			if !tc.allow && !errors.Is(err, ErrForbidden) {
				t.Fatalf("got %v, want an error wrapping ErrForbidden", err)
			}
		})
	}
}

// Only node identities get anything from the node rules; RBAC decides
// for everyone else (server/rbac), admins included.
func TestAuthorizeNodeRulesAreForNodesOnly(t *testing.T) {
	runAuthz(t, NewNodeAuthorizer(testGraph()), []authzCase{
		{"admin deletes a secret", admin, res("delete", "", "secrets", "", "default", "db"), false},
		{"admin /version", admin, path("get", "/version"), false},
		{"viewer gets pods", viewer, res("get", "", "pods", "", "default", "web-1"), false},
		{"viewer /version", viewer, path("get", "/version"), false},
		{"node /version", node1, path("get", "/version"), true},
		{"node discovery", node1, path("get", "/apis/apps/v1"), true},
		{"node openapi", node1, path("get", "/openapi/v3/api/v1"), true},
		{"node readyz", node1, path("head", "/readyz"), true},
		{"node post /version", node1, path("post", "/version"), false},
		{"node unknown path", node1, path("get", "/metrics"), false},
		{"node prefix trick", node1, path("get", "/versionx"), false},
		{"no user", nil, path("get", "/version"), false},
		{"unknown role", &User{Name: "x", Role: "root"}, path("get", "/version"), false},
	})
}

func TestAuthorizeNodeNodesAndLeases(t *testing.T) {
	const lease = "coordination.k8s.io"
	runAuthz(t, NewNodeAuthorizer(testGraph()), []authzCase{
		{"discovery", node1, path("get", "/api/v1"), true},
		{"healthz", node1, path("get", "/healthz"), true},
		{"get own node", node1, res("get", "", "nodes", "", "", "pi-1"), true},
		{"get other node", node1, res("get", "", "nodes", "", "", "pi-2"), false},
		{"list own node", node1, sel(res("list", "", "nodes", "", "", ""), "metadata.name=pi-1"), true},
		{"watch own node", node1, sel(res("watch", "", "nodes", "", "", ""), "metadata.name==pi-1"), true},
		{"list nodes without selector", node1, res("list", "", "nodes", "", "", ""), false},
		{"watch other node", node1, sel(res("watch", "", "nodes", "", "", ""), "metadata.name=pi-2"), false},
		{"create own node", node1, res("create", "", "nodes", "", "", "pi-1"), true},
		{"create nameless node", node1, res("create", "", "nodes", "", "", ""), false},
		{"create other node", node1, res("create", "", "nodes", "", "", "pi-2"), false},
		{"update own node", node1, res("update", "", "nodes", "", "", "pi-1"), true},
		{"patch other node", node1, res("patch", "", "nodes", "", "", "pi-2"), false},
		{"patch own status", node1, res("patch", "", "nodes", "status", "", "pi-1"), true},
		{"get own view", node1, res("get", "", "nodes", "view", "", "pi-1"), true},
		{"get other view", node1, res("get", "", "nodes", "view", "", "pi-2"), false},
		{"list views", node1, res("list", "", "nodes", "view", "", "pi-1"), false},
		{"update other status", node1, res("update", "", "nodes", "status", "", "pi-2"), false},
		{"delete own node", node1, res("delete", "", "nodes", "", "", "pi-1"), false},
		{"get own lease", node1, res("get", lease, "leases", "", "kube-node-lease", "pi-1"), true},
		{"create own lease", node1, res("create", lease, "leases", "", "kube-node-lease", "pi-1"), true},
		{"update own lease", node1, res("update", lease, "leases", "", "kube-node-lease", "pi-1"), true},
		{"update other lease", node1, res("update", lease, "leases", "", "kube-node-lease", "pi-2"), false},
		{"lease elsewhere", node1, res("update", lease, "leases", "", "kube-system", "pi-1"), false},
		{"delete own lease", node1, res("delete", lease, "leases", "", "kube-node-lease", "pi-1"), false},
		{"list leases", node1, res("list", lease, "leases", "", "kube-node-lease", ""), false},
		{"create event", node1, res("create", "", "events", "", "default", ""), true},
		{"patch event", node1, res("patch", "", "events", "", "default", "e1"), true},
		{"create events.k8s.io event", node1, res("create", "events.k8s.io", "events", "", "default", ""), true},
		{"delete event", node1, res("delete", "", "events", "", "default", "e1"), false},
		{"get deployment", node1, res("get", "apps", "deployments", "", "default", "web"), false},
		{"get namespace", node1, res("get", "", "namespaces", "", "", "default"), false},
		{"unknown path", node1, path("get", "/metrics"), false},
	})
}

func TestAuthorizeNodePodsAndReferences(t *testing.T) {
	runAuthz(t, NewNodeAuthorizer(testGraph()), []authzCase{
		{"list own pods", node1, sel(res("list", "", "pods", "", "", ""), "spec.nodeName=pi-1"), true},
		{"watch own pods in ns", node1, sel(res("watch", "", "pods", "", "default", ""), "spec.nodeName==pi-1,metadata.namespace=default"), true},
		{"list pods without selector", node1, res("list", "", "pods", "", "", ""), false},
		{"list pods other selector", node1, sel(res("list", "", "pods", "", "", ""), "metadata.name=web-1"), false},
		{"list other node's pods", node1, sel(res("list", "", "pods", "", "", ""), "spec.nodeName=pi-2"), false},
		{"list pods with !=", node1, sel(res("list", "", "pods", "", "", ""), "spec.nodeName!=pi-2"), false},
		{"list own and other", node1, sel(res("list", "", "pods", "", "", ""), "spec.nodeName=pi-1,spec.nodeName=pi-2"), false},
		{"malformed selector", node1, sel(res("list", "", "pods", "", "", ""), "spec.nodeName"), false},
		{"get own pod", node1, res("get", "", "pods", "", "default", "web-1"), true},
		{"get other node's pod", node1, res("get", "", "pods", "", "default", "web-2"), false},
		{"get unbound pod", node1, res("get", "", "pods", "", "default", "pending"), false},
		{"get missing pod", node1, res("get", "", "pods", "", "default", "nope"), false},
		{"delete own pod", node1, res("delete", "", "pods", "", "default", "web-1"), true},
		{"delete other's pod", node1, res("delete", "", "pods", "", "default", "web-2"), false},
		{"update own pod status", node1, res("update", "", "pods", "status", "default", "web-1"), true},
		{"patch other pod status", node1, res("patch", "", "pods", "status", "default", "web-2"), false},
		{"create pod", node1, res("create", "", "pods", "", "default", "x"), false},
		{"update own pod spec", node1, res("update", "", "pods", "", "default", "web-1"), false},
		{"add ephemeral container to own pod", node1, res("patch", "", "pods", "ephemeralcontainers", "default", "web-1"), false},
		{"put ephemeral containers of own pod", node1, res("update", "", "pods", "ephemeralcontainers", "default", "web-1"), false},
		{"own pod log", node1, res("get", "", "pods", "log", "default", "web-1"), false},
		{"bind pod", node1, res("create", "", "pods", "binding", "default", "pending"), false},
		{"get referenced secret", node1, res("get", "", "secrets", "", "default", "db"), true},
		{"get referenced configmap", node1, res("get", "", "configmaps", "", "default", "conf"), true},
		{"get unreferenced secret", node1, res("get", "", "secrets", "", "default", "random"), false},
		{"get other node's secret", node1, res("get", "", "secrets", "", "default", "other"), false},
		{"get other node's configmap", node1, res("get", "", "configmaps", "", "default", "conf2"), false},
		{"list secrets", node1, res("list", "", "secrets", "", "default", ""), false},
		{"watch configmaps", node1, res("watch", "", "configmaps", "", "default", ""), false},
		{"update referenced configmap", node1, res("update", "", "configmaps", "", "default", "conf"), false},
	})
}

func TestAuthorizeNodeGraphFailureRefuses(t *testing.T) {
	g := testGraph()
	g.err = errors.New("datastore closed")
	runAuthz(t, NewNodeAuthorizer(g), []authzCase{
		{"get pod", node1, res("get", "", "pods", "", "default", "web-1"), false},
		{"get secret", node1, res("get", "", "secrets", "", "default", "db"), false},
	})
	runAuthz(t, NewNodeAuthorizer(nil), []authzCase{
		{"nil graph get pod", node1, res("get", "", "pods", "", "default", "web-1"), false},
	})
}

func TestForbiddenMessages(t *testing.T) {
	az := NewNodeAuthorizer(testGraph())
	tests := []struct {
		user  *User
		attrs Attributes
		want  string
	}{
		{node1, res("get", "", "secrets", "", "default", "random"),
			`User "system:node:pi-1" cannot get resource "secrets" in API group "" in the namespace "default": no pod bound to node "pi-1" references it`},
		{viewer, res("create", "", "nodes", "", "", "x"),
			`User "alice" cannot create resource "nodes" in API group "" at the cluster scope: the node rules apply to nodes only`},
		{node1, res("patch", "", "pods", "status", "default", "web-2"),
			`User "system:node:pi-1" cannot patch resource "pods/status" in API group "" in the namespace "default": the pod is not bound to node "pi-1"`},
		{node1, sel(res("list", "", "pods", "", "", ""), "spec.nodeName=pi-2"),
			`User "system:node:pi-1" cannot list resource "pods" in API group "" at the cluster scope: fieldSelector names node "pi-2", want spec.nodeName=pi-1`},
		{node1, res("get", "apps", "deployments", "", "default", "web"),
			`User "system:node:pi-1" cannot get resource "deployments" in API group "apps" in the namespace "default"`},
		{node1, path("post", "/version"),
			`User "system:node:pi-1" cannot post path "/version": only get and head are allowed on this path`},
	}
	for _, tc := range tests {
		err := az.Authorize(context.Background(), tc.user, tc.attrs)
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
}
