package audit

import (
	"encoding/json"
	"testing"
)

// FuzzDecodePolicy: any input decodes or is refused, never panics; what
// decodes survives a round trip and decides for any request.
func FuzzDecodePolicy(f *testing.F) {
	f.Add([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"))
	f.Add([]byte(`{"apiVersion":"audit.k8s.io/v1","kind":"Policy","omitStages":["RequestReceived"],"rules":[{"level":"None","nonResourceURLs":["/h*"]},{"level":"Request","resources":[{"group":"","resources":["*/log","pods/*"],"resourceNames":["a"]}],"namespaces":[""]}]}`))
	f.Add([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  users: [a]\n  userGroups: [b]\n  verbs: [get]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodePolicy(data)
		if err != nil {
			return
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("marshal a decoded policy: %v", err)
		}
		q, err := DecodePolicy(again)
		if err != nil {
			t.Fatalf("a decoded policy does not decode again: %v\n%s", err, again)
		}
		for _, a := range []Attributes{
			{User: "a", Groups: []string{"b"}, Verb: "get", ResourceRequest: true, Resource: "pods", Subresource: "log", Name: "a"},
			{User: "x", Verb: "post", Path: "/healthz"},
		} {
			if p.Decide(&a).Level != q.Decide(&a).Level {
				t.Fatalf("round trip changed the level for %+v", a)
			}
		}
	})
}
