//go:build kubectl

package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const reconcileManifest = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: NS}
rules:
- apiGroups: [""]
  resources: ["pods", "pods/log"]
  verbs: ["get", "list"]
- apiGroups: [""]
  resources: ["configmaps"]
  resourceNames: ["cfg"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader, namespace: NS}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: User, name: erin-NS, apiGroup: rbac.authorization.k8s.io}
- {kind: ServiceAccount, name: bot, namespace: NS}
`

// testRBACObjects: the four create commands, auth reconcile, and can-i
// answers (subresources, resource names, namespaces, service accounts)
// that follow them; can-i --list and whoami for a bramble user.
func testRBACObjects(t *testing.T, e *rbacEnv, ns string) {
	e.ok(t, "", "create", "namespace", ns)
	e.ok(t, "", "create", "role", "pod-reader", "-n", ns, "--verb=get,list", "--resource=pods")
	e.ok(t, "", "create", "rolebinding", "read-pods", "-n", ns, "--role=pod-reader", "--user=alice-"+ns)
	e.ok(t, "", "create", "clusterrole", "node-reader-"+ns, "--verb=get,list", "--resource=nodes")
	e.ok(t, "", "create", "clusterrolebinding", "read-nodes-"+ns, "--clusterrole=node-reader-"+ns, "--group=ops-"+ns)
	as := func(user string, groups ...string) []string {
		out := []string{"--as=" + user}
		for _, g := range groups {
			out = append(out, "--as-group="+g)
		}
		return out
	}
	e.canI(t, "", true, append(as("alice-"+ns), "list", "pods", "-n", ns)...)
	e.canI(t, "", false, append(as("alice-"+ns), "list", "pods", "-n", "default")...)
	e.canI(t, "", false, append(as("alice-"+ns), "delete", "pods", "-n", ns)...)
	e.canI(t, "", true, append(as("bob", "ops-"+ns), "list", "nodes")...)
	e.canI(t, "", false, append(as("bob"), "list", "nodes")...)

	manifest := filepath.Join(e.dir, ns+"-reconcile.yaml")
	if err := os.WriteFile(manifest, []byte(strings.ReplaceAll(reconcileManifest, "NS", ns)), 0o600); err != nil {
		t.Fatal(err)
	}
	wantIn(t, e.ok(t, "", "auth", "reconcile", "-f", manifest), "role.rbac.authorization.k8s.io/reader reconciled")
	erin := as("erin-" + ns)
	e.canI(t, "", true, append(erin, "get", "pods", "--subresource=log", "-n", ns)...)
	e.canI(t, "", false, append(erin, "get", "pods", "--subresource=exec", "-n", ns)...)
	e.canI(t, "", true, append(erin, "get", "configmaps/cfg", "-n", ns)...)
	e.canI(t, "", false, append(erin, "get", "configmaps/other", "-n", ns)...)
	e.canI(t, "", true, append(as("system:serviceaccount:"+ns+":bot"), "list", "pods", "-n", ns)...)
	e.canI(t, "", false, append(as("system:serviceaccount:"+ns+":bot"), "list", "pods", "-A")...)
	e.canI(t, "", false, append(as("system:serviceaccount:"+ns+":bot"), "get", "secrets", "-n", ns)...)
	out, _ := e.run(t, "", append(erin, "get", "secrets", "-n", ns)...)
	wantIn(t, out, `User "erin-`+ns+`" cannot list resource "secrets" in API group "" in the namespace "`+ns+`"`)

	kc := e.user(t, "dana-"+ns, "view")
	wantIn(t, e.ok(t, kc, "auth", "whoami"), "dana-"+ns, "system:authenticated")
	wantIn(t, e.ok(t, kc, "auth", "can-i", "--list", "-n", ns), "pods", "[get list watch]", "selfsubjectrulesreviews")
	e.canI(t, kc, true, "list", "deployments", "-n", ns)
	e.canI(t, kc, false, "list", "secrets", "-n", ns)
	e.canI(t, kc, false, "create", "pods", "-n", ns)
}

// testRBACEscalation: a user bound to edit may not bind cluster-admin; a
// namespace admin may bind edit there but not cluster-admin, nor write a
// role with rules it does not hold.
func testRBACEscalation(t *testing.T, e *rbacEnv, ns string) {
	editor := e.user(t, "ed-"+ns, "edit")
	e.canI(t, editor, true, "create", "deployments", "-n", ns)
	e.refused(t, editor, "cannot create resource \"rolebindings\"",
		"create", "rolebinding", "take-over", "-n", ns, "--clusterrole=cluster-admin", "--user=ed-"+ns)
	nsAdmin := e.user(t, "na-"+ns, "system:basic-user")
	e.ok(t, "", "create", "rolebinding", "na-admin", "-n", ns, "--clusterrole=admin", "--user=na-"+ns)
	eventually(t, "the namespace admin's binding", func() bool {
		out, _ := e.run(t, nsAdmin, "auth", "can-i", "create", "rolebindings", "-n", ns)
		return strings.HasPrefix(out, "yes")
	})
	e.refused(t, nsAdmin, "attempting to grant RBAC permissions not currently held",
		"create", "rolebinding", "take-over", "-n", ns, "--clusterrole=cluster-admin", "--user=na-"+ns)
	e.ok(t, nsAdmin, "create", "rolebinding", "helper", "-n", ns, "--clusterrole=edit", "--user=helper")
	e.refused(t, nsAdmin, "attempting to grant RBAC permissions not currently held",
		"create", "role", "nodes", "-n", ns, "--verb=get", "--resource=nodes")
	e.ok(t, nsAdmin, "create", "role", "pods", "-n", ns, "--verb=get", "--resource=pods")
}

// testRBACImpersonation: --as and --as-group are refused without the
// impersonate verb, and honoured (whoami shows it) with it.
func testRBACImpersonation(t *testing.T, e *rbacEnv, ns string) {
	kc := e.user(t, "imp-"+ns, "view")
	e.refused(t, kc, `cannot impersonate resource "users"`, "get", "pods", "-n", ns, "--as=alice-"+ns)
	e.refused(t, kc, `cannot impersonate resource "users"`, "get", "pods", "-n", ns, "--as=alice-"+ns, "--as-group=ops")
	e.refused(t, kc, `cannot impersonate resource "serviceaccounts"`, "get", "pods", "-n", ns, "--as=system:serviceaccount:"+ns+":bot")
	e.ok(t, "", "create", "clusterrole", "impersonator-"+ns, "--verb=impersonate", "--resource=users", "--resource-name=alice-"+ns)
	e.ok(t, "", "create", "clusterrolebinding", "impersonator-"+ns, "--clusterrole=impersonator-"+ns, "--user=imp-"+ns)
	eventually(t, "impersonation allowed", func() bool {
		out, err := e.run(t, kc, "auth", "whoami", "--as=alice-"+ns)
		return err == nil && strings.Contains(out, "alice-"+ns)
	})
	e.refused(t, kc, `cannot impersonate resource "groups"`, "get", "pods", "-n", ns, "--as=alice-"+ns, "--as-group=ops")
	wantIn(t, e.ok(t, kc, "get", "pods", "-n", ns, "--as=alice-"+ns), "No resources found")
	e.refused(t, kc, `cannot impersonate resource "users"`, "get", "pods", "-n", ns, "--as=bob")
}

// testRBACAggregation: a ClusterRole labelled aggregate-to-view reaches
// view (and edit, admin): a view user may then read what it grants.
func testRBACAggregation(t *testing.T, e *rbacEnv) {
	kc := e.user(t, "agg", "view")
	e.canI(t, kc, false, "list", "certificatesigningrequests")
	e.ok(t, "", "create", "clusterrole", "csr-reader", "--verb=get,list", "--resource=certificatesigningrequests")
	e.ok(t, "", "label", "clusterrole", "csr-reader", "rbac.authorization.k8s.io/aggregate-to-view=true")
	eventually(t, "view aggregating csr-reader", func() bool {
		out, _ := e.run(t, kc, "auth", "can-i", "list", "certificatesigningrequests")
		return strings.Contains(out, "\nyes")
	})
	wantIn(t, e.ok(t, "", "get", "clusterrole", "edit", "-o", "yaml"), "certificatesigningrequests")
}

func wantIn(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Fatalf("output lacks %q:\n%s", w, out)
		}
	}
}
