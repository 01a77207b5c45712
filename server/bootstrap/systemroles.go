package bootstrap

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/join"
)

// autoupdate: "false" on a default role or binding stops the reconcile at
// start from touching it.
const autoupdate = "rbac.authorization.kubernetes.io/autoupdate"

// Groups the default bindings name.
const (
	groupAuthenticated   = "system:authenticated"
	groupUnauthenticated = "system:unauthenticated"
	groupMasters         = "system:masters"
	// ViewerRole, bound to join.ViewerGroup, reads everything served
	// except Secrets and the exec/attach/portforward/proxy subresources:
	// what bramble's viewer role allowed before RBAC was enforced.
	ViewerRole = "bramble:viewer"
)

// SystemClusterRoles are the roles every identity leans on (upstream's
// rules): asking the authorizer about oneself, discovery, health and
// version; and bramble's viewer role.
func SystemClusterRoles(kinds []*api.Resource) []*rbacv1.ClusterRole {
	get := []string{"get"}
	return []*rbacv1.ClusterRole{
		role("system:basic-user", nil, nil, []rbacv1.PolicyRule{
			{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
			{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}}}),
		role("system:discovery", nil, nil, []rbacv1.PolicyRule{{Verbs: get, NonResourceURLs: []string{
			"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}}}),
		role("system:public-info-viewer", nil, nil, []rbacv1.PolicyRule{{Verbs: get, NonResourceURLs: []string{
			"/healthz", "/livez", "/readyz", "/version", "/version/"}}}),
		role(ViewerRole, nil, nil, viewerRules(kinds)),
	}
}

// viewerRules read every resource served (custom resources included)
// and its subresources but Secrets and the interactive subresources, and
// the health paths below what system:discovery grants.
func viewerRules(kinds []*api.Resource) []rbacv1.PolicyRule {
	byGroup := map[string][]string{}
	var groups []string
	for _, res := range kinds {
		if res.Group == "" && res.Name == "secrets" {
			continue
		}
		if _, ok := byGroup[res.Group]; !ok {
			groups = append(groups, res.Group)
		}
		names := []string{res.Name}
		for _, sub := range res.Subresources {
			if sub != "exec" && sub != "attach" && sub != "portforward" && sub != "proxy" {
				names = append(names, res.Name+"/"+sub)
			}
		}
		for _, n := range names {
			if !slices.Contains(byGroup[res.Group], n) {
				byGroup[res.Group] = append(byGroup[res.Group], n)
			}
		}
	}
	slices.Sort(groups)
	rules := make([]rbacv1.PolicyRule, 0, len(groups)+1)
	for _, g := range groups {
		rules = append(rules, rbacv1.PolicyRule{Verbs: readVerbs, APIGroups: []string{g}, Resources: byGroup[g]})
	}
	return append(rules, rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz/*", "/livez/*", "/readyz/*"}})
}

// DefaultClusterRoleBindings grant the default roles as upstream does,
// and bramble's viewer role to its viewer group.
func DefaultClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	group := func(names ...string) []rbacv1.Subject {
		var out []rbacv1.Subject
		for _, n := range names {
			out = append(out, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: n})
		}
		return out
	}
	bind := func(name, roleName string, subjects []rbacv1.Subject) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels:      map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"},
			Annotations: map[string]string{autoupdate: "true"}},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName},
			Subjects: subjects}
	}
	return []*rbacv1.ClusterRoleBinding{
		bind("cluster-admin", "cluster-admin", group(groupMasters)),
		bind("system:basic-user", "system:basic-user", group(groupAuthenticated)),
		bind("system:discovery", "system:discovery", group(groupAuthenticated)),
		bind("system:public-info-viewer", "system:public-info-viewer", group(groupAuthenticated, groupUnauthenticated)),
		bind(ViewerRole, ViewerRole, group(join.ViewerGroup)),
	}
}

// mergeRole adds to have what want holds and have lacks: labels,
// annotations, the aggregation rule's selectors and rules.
func mergeRole(haveObj, wantObj api.Object) bool {
	have, want := haveObj.(*rbacv1.ClusterRole), wantObj.(*rbacv1.ClusterRole)
	changed := mergeMeta(&have.ObjectMeta, &want.ObjectMeta)
	if want.AggregationRule != nil {
		if have.AggregationRule == nil {
			have.AggregationRule = &rbacv1.AggregationRule{}
		}
		for _, sel := range want.AggregationRule.ClusterRoleSelectors {
			if !slices.ContainsFunc(have.AggregationRule.ClusterRoleSelectors, func(s metav1.LabelSelector) bool { return equality.Semantic.DeepEqual(s, sel) }) {
				have.AggregationRule.ClusterRoleSelectors = append(have.AggregationRule.ClusterRoleSelectors, sel)
				changed = true
			}
		}
		return changed // the aggregation controller owns the rules
	}
	for _, r := range want.Rules {
		if !slices.ContainsFunc(have.Rules, func(h rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(h, r) }) {
			have.Rules = append(have.Rules, r)
			changed = true
		}
	}
	return changed
}

// mergeBinding adds want's subjects and metadata to have; a binding whose
// roleRef differs is left alone (roleRef cannot change).
func mergeBinding(haveObj, wantObj api.Object) bool {
	have, want := haveObj.(*rbacv1.ClusterRoleBinding), wantObj.(*rbacv1.ClusterRoleBinding)
	if have.RoleRef != want.RoleRef {
		return false
	}
	changed := mergeMeta(&have.ObjectMeta, &want.ObjectMeta)
	for _, s := range want.Subjects {
		if !slices.Contains(have.Subjects, s) {
			have.Subjects = append(have.Subjects, s)
			changed = true
		}
	}
	return changed
}

func mergeMeta(have, want *metav1.ObjectMeta) bool {
	changed := false
	for _, m := range []struct {
		have *map[string]string
		want map[string]string
	}{
		{&have.Labels, want.Labels}, {&have.Annotations, want.Annotations}} {
		for k, v := range m.want {
			if _, ok := (*m.have)[k]; ok {
				continue
			}
			if *m.have == nil {
				*m.have = map[string]string{}
			}
			(*m.have)[k] = v
			changed = true
		}
	}
	return changed
}
