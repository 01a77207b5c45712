package rbac

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

func TestCovers(t *testing.T) {
	owner := []rbacv1.PolicyRule{
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods", "*/scale"}},
		{Verbs: []string{"*"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/api/*"}},
	}
	tests := []struct {
		name string
		rule rbacv1.PolicyRule
		want bool
	}{
		{"subset of verbs", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}, true},
		{"more verbs", rbacv1.PolicyRule{Verbs: []string{"get", "delete"}, APIGroups: []string{""}, Resources: []string{"pods"}}, false},
		{"wildcard verb held", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}}, true},
		{"wildcard verb not held", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"pods"}}, false},
		{"*/scale covers deployments/scale", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"deployments/scale"}}, true},
		{"pods does not cover pods/log", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}, false},
		{"named held", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, true},
		{"named not held", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"b"}}, false},
		{"every name from one", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}, false},
		{"path below prefix", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/api/v1", "/api/*"}}, true},
		{"path outside", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/apis"}}, false},
		{"group wildcard", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"pods"}}, false},
	}
	for _, tc := range tests {
		if got, missing := Covers(owner, tc.rule); got != tc.want || (got == (len(missing) > 0)) {
			t.Errorf("%s: got %v (missing %v), want %v", tc.name, got, missing, tc.want)
		}
	}
}

func TestEscalationAdmission(t *testing.T) {
	x := testIndex()
	x.SetRole("", "cluster-admin", []rbacv1.PolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}})
	x.SetRole("", "binder", []rbacv1.PolicyRule{{Verbs: []string{"bind"}, APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles"}, ResourceNames: []string{"cluster-admin"}}})
	x.SetBinding("", "binder", clusterRef("binder"), []rbacv1.Subject{{Kind: "User", Name: "binder"}})
	e := NewEscalation(New(x, nil))
	as := func(name string, groups ...string) context.Context {
		return registry.WithUser(context.Background(), registry.UserInfo{Name: name, Groups: groups})
	}
	rb := func(role string) *registry.Attributes {
		return &registry.Attributes{Resource: api.MustLookup(rbacv1.GroupName, "v1", "rolebindings"),
			Object: &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "b"}, RoleRef: clusterRef(role)}}
	}
	role := func(ns string, rules ...rbacv1.PolicyRule) *registry.Attributes {
		return &registry.Attributes{Resource: api.MustLookup(rbacv1.GroupName, "v1", "roles"),
			Object: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "r"}, Rules: rules}}
	}
	getPods := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	tests := []struct {
		name string
		ctx  context.Context
		a    *registry.Attributes
		want string // "" allowed
	}{
		{"alice binds what she holds in dev", as("alice"), rb("pod-reader"), ""},
		{"alice binds cluster-admin", as("alice"), rb("cluster-admin"), "not currently held"},
		{"binder may bind cluster-admin", as("binder"), rb("cluster-admin"), ""},
		{"binding a missing role", as("alice"), rb("nope"), "does not exist"},
		{"masters", as("root", "system:masters"), rb("cluster-admin"), ""},
		{"server's own write", context.Background(), rb("cluster-admin"), ""},
		{"role with held rules", as("alice"), role("dev", getPods), ""},
		{"role elsewhere", as("alice"), role("prod", getPods), "not currently held"},
	}
	for _, tc := range tests {
		_, err := e.Admit(tc.ctx, tc.a)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}
