package audit

import (
	"strings"
	"testing"
)

func TestDecodePolicyRefusesBadInputNamingTheField(t *testing.T) {
	head := "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
	for _, tc := range []struct{ name, doc, want string }{
		{"wrong kind", "apiVersion: audit.k8s.io/v1\nkind: Pod\n", "want audit.k8s.io/v1, Policy"},
		{"old version", "apiVersion: audit.k8s.io/v1beta1\nkind: Policy\n", "want audit.k8s.io/v1"},
		{"unknown field", head + "rules:\n- level: None\n  user: [a]\n", `unknown field "user"`},
		{"bad level", head + "rules:\n- level: Everything\n", `rules[0].level "Everything"`},
		{"no level", head + "rules:\n- users: [a]\n", `rules[0].level ""`},
		{"bad stage", head + "omitStages: [Done]\n", `omitStages[0] "Done"`},
		{"bad rule stage", head + "rules:\n- level: None\n- level: None\n  omitStages: [X]\n", `rules[1].omitStages[0] "X"`},
		{"urls and resources", head + "rules:\n- level: None\n  nonResourceURLs: [/x]\n  resources: [{resources: [pods]}]\n", "rules[0]: nonResourceURLs may not go with"},
		{"url without slash", head + "rules:\n- level: None\n  nonResourceURLs: [healthz]\n", `rules[0].nonResourceURLs[0] "healthz"`},
		{"star inside url", head + "rules:\n- level: None\n  nonResourceURLs: [/a*b]\n", `nonResourceURLs[0] "/a*b"`},
		{"empty resource", head + "rules:\n- level: None\n  resources: [{resources: [\"/log\"]}]\n", `rules[0].resources[0].resources[0] "/log"`},
		{"deep resource", head + "rules:\n- level: None\n  resources: [{resources: [a/b/c]}]\n", `resources[0] "a/b/c"`},
		{"not yaml", "{", "decode audit policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodePolicy([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestDecodePolicyReadsUpstreamExample(t *testing.T) {
	doc := `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: RequestResponse
    resources:
    - group: ""
      resources: ["pods"]
  - level: Metadata
    resources:
    - group: ""
      resources: ["pods/log", "pods/status"]
  - level: None
    resources:
    - group: ""
      resources: ["configmaps"]
      resourceNames: ["controller-leader"]
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
    resources:
    - group: ""
      resources: ["endpoints", "services"]
  - level: None
    userGroups: ["system:authenticated"]
    nonResourceURLs: ["/api*", "/version"]
  - level: Request
    resources:
    - group: ""
      resources: ["configmaps"]
    namespaces: ["kube-system"]
  - level: Metadata
    resources:
    - group: ""
      resources: ["secrets", "configmaps"]
  - level: Request
    resources:
    - group: ""
    - group: "extensions"
  - level: Metadata
    omitStages:
      - "RequestReceived"
`
	p, err := DecodePolicy([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) != 9 || !p.stages.has(StageRequestReceived) || p.stages.has(StageResponseComplete) {
		t.Fatalf("got %d rules, stages %b; want 9 rules omitting RequestReceived only", len(p.Rules), p.stages)
	}
}

func TestDefaultPolicyIsMetadataForEverything(t *testing.T) {
	p := DefaultPolicy()
	for _, a := range []Attributes{
		{User: "admin", Verb: "get", ResourceRequest: true, Resource: "secrets", Namespace: "kube-system", Name: "x"},
		{User: "alice", Verb: "create", ResourceRequest: true, Resource: "secrets", Namespace: "default"},
		{User: "system:anonymous", Verb: "get", Path: "/healthz"},
	} {
		d := p.Decide(&a)
		if d.Level != LevelMetadata || !d.Omits(StageRequestReceived) || d.Omits(StageResponseComplete) {
			t.Errorf("%+v: got %s omitting RequestReceived %v, want Metadata omitting only RequestReceived", a, d.Level, d.Omits(StageRequestReceived))
		}
	}
	if p.logsBodies() {
		t.Error("the default policy logs bodies; it must not")
	}
}
