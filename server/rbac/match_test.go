package rbac

import (
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/server/auth"
)

func res(verb, group, resource, sub, ns, name string) auth.Attributes {
	return auth.Attributes{Verb: verb, Group: group, Resource: resource, Subresource: sub, Namespace: ns, Name: name}
}

func TestRuleAllows(t *testing.T) {
	pods := rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	logs := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}
	scale := rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}
	named := rbacv1.PolicyRule{Verbs: []string{"get", "update"}, APIGroups: []string{""}, Resources: []string{"configmaps"},
		ResourceNames: []string{"cfg"}}
	all := rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}
	health := rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/livez*"}}
	tests := []struct {
		name  string
		rule  rbacv1.PolicyRule
		attrs auth.Attributes
		want  bool
	}{
		{"verb and resource", pods, res("list", "", "pods", "", "ns", ""), true},
		{"other verb", pods, res("delete", "", "pods", "", "ns", "p"), false},
		{"other group", pods, res("get", "apps", "pods", "", "ns", "p"), false},
		{"subresource not in rule", pods, res("get", "", "pods", "log", "ns", "p"), false},
		{"resource/subresource", logs, res("get", "", "pods", "log", "ns", "p"), true},
		{"subresource rule is not the resource", logs, res("get", "", "pods", "", "ns", "p"), false},
		{"other subresource", logs, res("get", "", "pods", "exec", "ns", "p"), false},
		{"*/scale on deployments", scale, res("update", "apps", "deployments", "scale", "ns", "d"), true},
		{"*/scale is not the resource", scale, res("update", "apps", "deployments", "", "ns", "d"), false},
		{"*/scale is not status", scale, res("update", "apps", "deployments", "status", "ns", "d"), false},
		{"resourceName matches", named, res("get", "", "configmaps", "", "ns", "cfg"), true},
		{"resourceName differs", named, res("get", "", "configmaps", "", "ns", "other"), false},
		{"resourceNames refuse lists", named, res("list", "", "configmaps", "", "ns", ""), false},
		{"wildcards", all, res("deletecollection", "batch", "jobs", "", "ns", ""), true},
		{"wildcards and subresources", all, res("create", "", "pods", "eviction", "ns", "p"), true},
		{"resource rule is not a path", all, auth.Attributes{Verb: "get", NonResourcePath: "/healthz"}, false},
		{"exact path", health, auth.Attributes{Verb: "get", NonResourcePath: "/healthz"}, true},
		{"head is get", health, auth.Attributes{Verb: "head", NonResourcePath: "/healthz"}, true},
		{"path below exact", health, auth.Attributes{Verb: "get", NonResourcePath: "/healthz/etcd"}, false},
		{"prefix path", health, auth.Attributes{Verb: "get", NonResourcePath: "/livez/ping"}, true},
		{"post refused", health, auth.Attributes{Verb: "post", NonResourcePath: "/healthz"}, false},
		{"path rule is not a resource", health, res("get", "", "healthz", "", "", ""), false},
	}
	for _, tc := range tests {
		if got := ruleAllows(&tc.rule, &tc.attrs); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// refAllows is the matching spelled out another way, for the fuzz test.
func refAllows(rule *rbacv1.PolicyRule, a *auth.Attributes) bool {
	has := func(list []string, s string) bool {
		for _, v := range list {
			if v == "*" || v == s {
				return true
			}
		}
		return false
	}
	if a.NonResourcePath != "" {
		verb := a.Verb
		if verb == "head" {
			verb = "get"
		}
		for _, u := range rule.NonResourceURLs {
			prefix, wild := strings.CutSuffix(u, "*")
			if has(rule.Verbs, verb) && (u == a.NonResourcePath || (wild && strings.HasPrefix(a.NonResourcePath, prefix))) {
				return true
			}
		}
		return false
	}
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	resOK := false
	for _, r := range rule.Resources {
		resOK = resOK || r == "*" || r == combined || (a.Subresource != "" && r == "*/"+a.Subresource)
	}
	nameOK := len(rule.ResourceNames) == 0
	for _, n := range rule.ResourceNames {
		nameOK = nameOK || (a.Name != "" && n == a.Name)
	}
	return resOK && nameOK && has(rule.Verbs, a.Verb) && has(rule.APIGroups, a.Group)
}

func FuzzRuleAllows(f *testing.F) {
	f.Add("get", "", "pods", "pods/log", "", "/healthz*", "get", "", "pods", "log", "p", "")
	f.Add("*", "*", "*", "*/scale", "cfg", "*", "update", "apps", "deployments", "scale", "cfg", "")
	f.Add("get", "", "", "", "", "/livez*", "head", "", "", "", "", "/livez/ping")
	f.Fuzz(func(t *testing.T, verb, group, r1, r2, name, url, aVerb, aGroup, aRes, aSub, aName, aPath string) {
		rule := rbacv1.PolicyRule{Verbs: []string{verb}, APIGroups: []string{group}, Resources: []string{r1, r2}}
		if name != "" {
			rule.ResourceNames = []string{name}
		}
		nr := rbacv1.PolicyRule{Verbs: []string{verb}, NonResourceURLs: []string{url}}
		attrs := auth.Attributes{Verb: aVerb, Group: aGroup, Resource: aRes, Subresource: aSub, Name: aName, NonResourcePath: aPath}
		for _, r := range []*rbacv1.PolicyRule{&rule, &nr} {
			if got, want := ruleAllows(r, &attrs), refAllows(r, &attrs); got != want {
				t.Fatalf("rule %+v, attrs %+v: got %v, want %v", r, attrs, got, want)
			}
		}
		exact := rbacv1.PolicyRule{Verbs: []string{aVerb}, APIGroups: []string{aGroup}, Resources: []string{aRes}}
		if aSub != "" {
			exact.Resources = []string{aRes + "/" + aSub}
		}
		if aPath == "" && aRes != "" && !ruleAllows(&exact, &attrs) {
			t.Fatalf("the rule made of the request %+v does not allow it", attrs)
		}
	})
}
