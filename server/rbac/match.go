// Package rbac authorizes requests with Kubernetes' RBAC objects: Roles
// and ClusterRoles hold rules, RoleBindings and ClusterRoleBindings grant
// them to users, groups and service accounts. The objects are read from
// the shared informer cache into an index by subject, so a decision looks
// only at the bindings of the asking user and its groups.
package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/server/auth"
)

// ruleAllows reports whether rule grants what attrs ask, with upstream's
// matching: "*" matches any verb, group, resource or path; a resource
// may be named "pods/log" (one subresource) or "*/scale" (that subresource
// of any resource); resourceNames, when given, must name the object; a
// non-resource URL ending in "*" matches every path it prefixes.
func ruleAllows(rule *rbacv1.PolicyRule, attrs *auth.Attributes) bool {
	if attrs.NonResourcePath != "" {
		return len(rule.NonResourceURLs) > 0 && verbMatches(rule.Verbs, nonResourceVerb(attrs.Verb)) &&
			pathMatches(rule.NonResourceURLs, attrs.NonResourcePath)
	}
	return len(rule.Resources) > 0 && verbMatches(rule.Verbs, attrs.Verb) &&
		contains(rule.APIGroups, attrs.Group) &&
		resourceMatches(rule.Resources, attrs.Resource, attrs.Subresource) &&
		nameMatches(rule.ResourceNames, attrs.Name)
}

// nonResourceVerb maps HEAD to get: a HEAD of /healthz asks what a GET does.
func nonResourceVerb(verb string) string {
	if verb == "head" {
		return "get"
	}
	return verb
}

func verbMatches(verbs []string, verb string) bool { return contains(verbs, verb) }

// contains reports whether list holds s or the wildcard.
func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s || v == rbacv1.VerbAll {
			return true
		}
	}
	return false
}

func resourceMatches(rules []string, resource, sub string) bool {
	for _, r := range rules {
		switch {
		case r == rbacv1.ResourceAll:
			return true
		case sub == "":
			if r == resource {
				return true
			}
		case len(r) == len(resource)+1+len(sub) && r[len(resource)] == '/' &&
			strings.HasPrefix(r, resource) && strings.HasSuffix(r, sub):
			return true
		case len(r) == len(sub)+2 && strings.HasPrefix(r, "*/") && strings.HasSuffix(r, sub):
			return true
		}
	}
	return false
}

// nameMatches: no resourceNames allow every name; otherwise the request
// must name one of them (a list or a create, naming none, is not allowed).
func nameMatches(names []string, name string) bool {
	if len(names) == 0 {
		return true
	}
	if name == "" {
		return false
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

func pathMatches(urls []string, path string) bool {
	for _, u := range urls {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		if strings.HasSuffix(u, "*") && strings.HasPrefix(path, u[:len(u)-1]) {
			return true
		}
	}
	return false
}
