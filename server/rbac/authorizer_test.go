package rbac

import (
	"context"
	"errors"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/server/auth"
)

func clusterRef(name string) rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}
}

func testIndex() *Index {
	x := NewIndex()
	x.SetRole("", "pod-reader", []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}})
	x.SetRole("dev", "cm-writer", []rbacv1.PolicyRule{{Verbs: []string{"update"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}})
	x.SetRole("", "discovery", []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*"}}})
	x.SetBinding("dev", "alice-pods", clusterRef("pod-reader"), []rbacv1.Subject{{Kind: "User", Name: "alice"}})
	x.SetBinding("dev", "team-cm", rbacv1.RoleRef{Kind: "Role", Name: "cm-writer"}, []rbacv1.Subject{{Kind: "Group", Name: "team"}})
	x.SetBinding("dev", "sa-pods", clusterRef("pod-reader"), []rbacv1.Subject{{Kind: "ServiceAccount", Name: "bot"}})
	x.SetBinding("", "discovery", clusterRef("discovery"), []rbacv1.Subject{{Kind: "Group", Name: GroupAuthenticated}})
	return x
}

func TestAuthorizerDecisions(t *testing.T) {
	a := New(testIndex(), nil)
	alice := &auth.User{Name: "alice"}
	team := &auth.User{Name: "bob", Groups: []string{"team"}}
	bot := &auth.User{Name: "system:serviceaccount:dev:bot", Groups: []string{"system:serviceaccounts", GroupAuthenticated}}
	root := &auth.User{Name: "root", Groups: []string{auth.GroupMasters}}
	tests := []struct {
		name  string
		user  *auth.User
		attrs auth.Attributes
		want  bool
	}{
		{"rolebinding in its namespace", alice, res("list", "", "pods", "", "dev", ""), true},
		{"rolebinding elsewhere", alice, res("list", "", "pods", "", "prod", ""), false},
		{"rolebinding cluster-wide", alice, res("list", "", "pods", "", "", ""), false},
		{"group binding to a Role", team, res("update", "", "configmaps", "", "dev", "c"), true},
		{"group binding, other verb", team, res("delete", "", "configmaps", "", "dev", "c"), false},
		{"service account subject", bot, res("get", "", "pods", "", "dev", "p"), true},
		{"service account elsewhere", bot, res("get", "", "pods", "", "kube-system", "p"), false},
		{"system:authenticated implied", alice, auth.Attributes{Verb: "get", NonResourcePath: "/api/v1"}, true},
		{"anonymous is not authenticated", nil, auth.Attributes{Verb: "get", NonResourcePath: "/api"}, false},
		{"masters", root, res("delete", "", "nodes", "", "", "n"), true},
	}
	for _, tc := range tests {
		err := a.Authorize(context.Background(), tc.user, tc.attrs)
		if got := err == nil; got != tc.want {
			t.Errorf("%s: got %v, want allowed=%v", tc.name, err, tc.want)
		}
		if err != nil && !errors.Is(err, auth.ErrForbidden) {
			t.Errorf("%s: got %v, want ErrForbidden", tc.name, err)
		}
	}
}

func TestForbiddenMessage(t *testing.T) {
	err := New(NewIndex(), nil).Authorize(context.Background(), &auth.User{Name: "x"}, res("list", "", "pods", "", "y", ""))
	want := `User "x" cannot list resource "pods" in API group "" in the namespace "y"`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestIndexUpdatesAndDeletes(t *testing.T) {
	x := testIndex()
	a := New(x, nil)
	alice := &auth.User{Name: "alice"}
	list := res("list", "", "pods", "", "dev", "")
	x.SetBinding("dev", "alice-pods", clusterRef("pod-reader"), []rbacv1.Subject{{Kind: "User", Name: "carol"}})
	if err := a.Authorize(context.Background(), alice, list); err == nil {
		t.Error("alice after the binding moved to carol: allowed, want refused")
	}
	if err := a.Authorize(context.Background(), &auth.User{Name: "carol"}, list); err != nil {
		t.Errorf("carol: %v", err)
	}
	x.DeleteRole("", "pod-reader")
	if err := a.Authorize(context.Background(), &auth.User{Name: "carol"}, list); err == nil {
		t.Error("carol after the role was deleted: allowed, want refused")
	}
	x.DeleteBinding("dev", "alice-pods")
	if n := len(x.bySubject[scoped{subject{name: "carol"}, "dev"}]); n != 0 {
		t.Errorf("carol's bindings after delete: got %d, want 0", n)
	}
	rules := x.RulesFor("bob", []string{"team"}, "dev")
	if len(rules) != 1 || rules[0].Resources[0] != "configmaps" {
		t.Errorf("RulesFor bob in dev: got %+v, want the cm-writer rule", rules)
	}
}
