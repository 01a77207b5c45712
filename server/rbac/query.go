package rbac

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/server/auth"
)

// Groups every identity is in, as upstream adds them.
const (
	GroupAuthenticated   = "system:authenticated"
	GroupUnauthenticated = "system:unauthenticated"
	AnonymousUser        = "system:anonymous"
)

// Allows reports whether a binding of user name or of one of groups grants
// a rule that allows attrs. A RoleBinding counts only for requests in its
// namespace; a ClusterRoleBinding counts everywhere.
func (x *Index) Allows(name string, groups []string, attrs *auth.Attributes) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.subjectAllows(subject{name: name}, attrs) {
		return true
	}
	for _, g := range groups {
		if x.subjectAllows(subject{group: true, name: g}, attrs) {
			return true
		}
	}
	return false
}

func (x *Index) subjectAllows(s subject, attrs *auth.Attributes) bool {
	if x.bindingsAllow(x.bySubject[scoped{s, ""}], attrs) {
		return true
	}
	return attrs.Namespace != "" && x.bindingsAllow(x.bySubject[scoped{s, attrs.Namespace}], attrs)
}

func (x *Index) bindingsAllow(bindings []*binding, attrs *auth.Attributes) bool {
	for _, b := range bindings {
		rules := x.roles[b.role]
		for i := range rules {
			if ruleAllows(&rules[i], attrs) {
				return true
			}
		}
	}
	return false
}

// RulesFor returns the rules user name with groups holds in namespace
// ("" for the rules that hold everywhere): those of its ClusterRoleBindings
// and of the RoleBindings in namespace. The rules are the index's own:
// read them, never change them.
func (x *Index) RulesFor(name string, groups []string, namespace string) []rbacv1.PolicyRule {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var out []rbacv1.PolicyRule
	seen := map[*binding]bool{}
	add := func(s subject) {
		for _, ns := range [2]string{"", namespace} {
			for _, b := range x.bySubject[scoped{s, ns}] {
				if !seen[b] {
					seen[b] = true
					out = append(out, x.roles[b.role]...)
				}
			}
		}
	}
	add(subject{name: name})
	for _, g := range groups {
		add(subject{group: true, name: g})
	}
	return out
}
