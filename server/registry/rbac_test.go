package registry

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// TestRBACValidation writes invalid roles and bindings through the
// registry on SQLite and wants upstream's 422s, naming the field.
func TestRBACValidation(t *testing.T) {
	c, ctx := newTestRegistry(t).Client(), context.Background()
	meta := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name, Namespace: "default"} }
	read := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}
	ref := rbacv1.RoleRef{Kind: "Role", Name: "reader"}
	alice := rbacv1.Subject{Kind: "User", Name: "alice"}
	for _, tc := range []struct {
		name  string
		obj   api.Object
		field string
	}{
		{"no verbs", &rbacv1.Role{ObjectMeta: meta("r1"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}}}}, "rules[0].verbs"},
		{"no api groups", &rbacv1.Role{ObjectMeta: meta("r2"), Rules: []rbacv1.PolicyRule{{Resources: []string{"pods"}, Verbs: []string{"get"}}}}, "rules[0].apiGroups"},
		{"namespaced URL", &rbacv1.Role{ObjectMeta: meta("r3"), Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/x"}, Verbs: []string{"get"}}}}, "rules[0].nonResourceURLs"},
		{"URL and resources", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "c1"},
			Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/x"}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}, "rules[0].nonResourceURLs"},
		{"empty aggregation", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "c2"}, AggregationRule: &rbacv1.AggregationRule{}},
			"aggregationRule.clusterRoleSelectors"},
		{"role ref kind", &rbacv1.RoleBinding{ObjectMeta: meta("b1"), RoleRef: rbacv1.RoleRef{Kind: "Group", Name: "x"}, Subjects: []rbacv1.Subject{alice}}, "roleRef.kind"},
		{"cluster binding to Role", &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b2"}, RoleRef: ref, Subjects: []rbacv1.Subject{alice}}, "roleRef.kind"},
		{"role ref name", &rbacv1.RoleBinding{ObjectMeta: meta("b3"), RoleRef: rbacv1.RoleRef{Kind: "Role"}}, "roleRef.name"},
		{"subject kind", &rbacv1.RoleBinding{ObjectMeta: meta("b4"), RoleRef: ref, Subjects: []rbacv1.Subject{{Kind: "Robot", Name: "r"}}}, "subjects[0].kind"},
		{"service account namespace", &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "b5"},
			RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}, Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default"}}}, "subjects[0].namespace"},
		{"service account group", &rbacv1.RoleBinding{ObjectMeta: meta("b6"), RoleRef: ref,
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", APIGroup: "rbac.authorization.k8s.io"}}}, "subjects[0].apiGroup"},
		{"user group", &rbacv1.RoleBinding{ObjectMeta: meta("b7"), RoleRef: ref, Subjects: []rbacv1.Subject{{Kind: "User", Name: "bob", APIGroup: "example.com"}}}, "subjects[0].apiGroup"},
		{"name with slash", &rbacv1.Role{ObjectMeta: meta("a/b"), Rules: []rbacv1.PolicyRule{read}}, "metadata.name"},
	} {
		_, err := c.Create(ctx, tc.obj)
		wantInvalid(t, tc.name, err, tc.field)
	}
	if _, err := c.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:controller:x"}, Rules: []rbacv1.PolicyRule{read}}); err != nil {
		t.Fatalf("create a cluster role named with colons: %v", err)
	}
}

// TestRoleBindingDefaultsAndImmutableRoleRef: roleRef.apiGroup and a
// User subject's apiGroup are defaulted; roleRef cannot change, subjects can.
func TestRoleBindingDefaultsAndImmutableRoleRef(t *testing.T) {
	c, ctx := newTestRegistry(t).Client(), context.Background()
	b := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "read", Namespace: "default"},
		RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}, Subjects: []rbacv1.Subject{{Kind: "User", Name: "alice"}}}
	got, err := c.Create(ctx, b)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	created := got.(*rbacv1.RoleBinding)
	if created.RoleRef.APIGroup != rbacv1.GroupName || created.Subjects[0].APIGroup != rbacv1.GroupName {
		t.Fatalf("got roleRef.apiGroup %q, subject apiGroup %q, want %s", created.RoleRef.APIGroup, created.Subjects[0].APIGroup, rbacv1.GroupName)
	}
	upd := created.DeepCopy()
	upd.Subjects = append(upd.Subjects, rbacv1.Subject{Kind: "Group", Name: "ops"})
	got, err = c.Update(ctx, upd)
	if err != nil {
		t.Fatalf("update subjects: %v", err)
	}
	upd = got.(*rbacv1.RoleBinding).DeepCopy()
	upd.RoleRef.Name = "admin"
	_, err = c.Update(ctx, upd)
	wantInvalid(t, "change roleRef", err, "roleRef")
	if err == nil || !strings.Contains(err.Error(), "cannot change roleRef") {
		t.Fatalf("change roleRef: got %v, want \"cannot change roleRef\"", err)
	}
}
