package audit

import "testing"

func TestPolicyDecideFirstMatchingRule(t *testing.T) {
	p, err := DecodePolicy([]byte(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  users: [system:kube-proxy]
- level: None
  nonResourceURLs: ["/healthz*", /version]
- level: RequestResponse
  userGroups: [auditors]
  verbs: [create, update]
  resources: [{group: "", resources: [configmaps]}]
  namespaces: [team-a]
  omitStages: [ResponseStarted]
- level: Request
  resources: [{group: apps, resources: ["deployments/*"]}]
- level: Metadata
  resources: [{group: "", resources: ["*/log"]}, {group: "", resources: [secrets], resourceNames: [s1]}]
- level: Request
  resources: [{group: "", resources: [pods]}]
- level: Metadata
  resources: [{group: batch}]
- level: Request
  namespaces: [""]
`))
	if err != nil {
		t.Fatal(err)
	}
	res := func(user, verb, group, resource, sub, ns, name string, groups ...string) Attributes {
		return Attributes{User: user, Groups: groups, Verb: verb, ResourceRequest: true, APIGroup: group,
			Resource: resource, Subresource: sub, Namespace: ns, Name: name}
	}
	for _, tc := range []struct {
		name string
		a    Attributes
		want Level
	}{
		{"user rule", res("system:kube-proxy", "watch", "", "pods", "", "", ""), LevelNone},
		{"url prefix", Attributes{User: "a", Verb: "get", Path: "/healthz/etcd"}, LevelNone},
		{"url exact", Attributes{User: "a", Verb: "get", Path: "/version"}, LevelNone},
		{"url no match", Attributes{User: "a", Verb: "get", Path: "/versions"}, LevelNone},
		{"group verb resource namespace", res("bob", "create", "", "configmaps", "", "team-a", "", "auditors"), LevelRequestResponse},
		{"other namespace", res("bob", "create", "", "configmaps", "", "team-b", "", "auditors"), LevelNone},
		{"other verb", res("bob", "get", "", "configmaps", "", "team-a", "", "auditors"), LevelNone},
		{"not in group", res("bob", "create", "", "configmaps", "", "team-a", ""), LevelNone},
		{"resource/* with sub", res("a", "update", "apps", "deployments", "scale", "x", "d"), LevelRequest},
		{"resource/* covers the resource itself, as upstream", res("a", "update", "apps", "deployments", "", "x", "d"), LevelRequest},
		{"other group", res("a", "update", "", "deployments", "scale", "x", "d"), LevelNone},
		{"*/sub", res("a", "get", "", "pods", "log", "x", "p"), LevelMetadata},
		{"resourceNames", res("a", "get", "", "secrets", "", "x", "s1"), LevelMetadata},
		{"resourceNames other", res("a", "get", "", "secrets", "", "x", "s2"), LevelNone},
		{"plain is not sub", res("a", "get", "", "pods", "status", "x", "p"), LevelNone},
		{"plain", res("a", "get", "", "pods", "", "x", "p"), LevelRequest},
		{"whole group", res("a", "list", "batch", "jobs", "", "x", ""), LevelMetadata},
		{"cluster-scoped namespace rule", res("a", "list", "", "nodes", "", "", ""), LevelRequest},
		{"no rule", res("a", "list", "", "services", "", "x", ""), LevelNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := p.Decide(&tc.a).Level; got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	d := p.Decide(&Attributes{User: "bob", Groups: []string{"auditors"}, Verb: "update", ResourceRequest: true, Resource: "configmaps", Namespace: "team-a"})
	if !d.Omits(StageRequestReceived) || !d.Omits(StageResponseStarted) || d.Omits(StageResponseComplete) {
		t.Errorf("omitted stages: got %b, want the policy's and the rule's", d.omit)
	}
}
