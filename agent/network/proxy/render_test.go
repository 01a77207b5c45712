package proxy

import (
	"strings"
	"testing"
)

// TestRender checks the shape the kernel test relies on: base chains, one
// cluster chain per service port, an external chain only with NodePorts,
// endpoint chains and affinity sets only with ClientIP affinity, and the
// hairpin set holding each endpoint address paired with itself, once.
func TestRender(t *testing.T) {
	r := Render(kernelPlan(podA, podB, podC))
	count := map[string]int{}
	for _, c := range r.Chains {
		count[c.Name[:6]]++
		if c.Hook != nil && c.Name != PreroutingChain && c.Name != OutputChain && c.Name != PostroutingChain {
			t.Errorf("unexpected base chain %s", c.Name)
		}
	}
	want := map[string]int{"svc-pr": 1, "svc-ou": 1, "svc-po": 1, "svc-c-": 5, "svc-x-": 2, "svc-e-": 3}
	for k, v := range want {
		if count[k] != v {
			t.Errorf("chains %s*: got %d, want %d (all: %v)", k, count[k], v, count)
		}
	}
	var affinity, hairpin int
	for _, s := range r.Sets {
		switch {
		case s.Name == HairpinSet:
			hairpin = len(s.Elements)
			for _, e := range s.Elements {
				if len(e) != 8 || string(e[:4]) != string(e[4:]) {
					t.Errorf("hairpin element %v is not an address paired with itself", e)
				}
			}
		case s.Name == FrontendMap:
			if len(s.Elements) != 7 || len(s.Jumps) != 7 { // 5 ClusterIPs, 2 NodePorts on one node IP
				t.Errorf("frontend map: %d keys, %d jumps, want 7 and 7", len(s.Elements), len(s.Jumps))
			}
		case strings.HasPrefix(s.Name, "svc-a-"):
			affinity++
			if s.Timeout != defaultAffinity {
				t.Errorf("affinity set %s: timeout %v, want %v", s.Name, s.Timeout, defaultAffinity)
			}
		}
	}
	if affinity != 3 || hairpin != 4 { // a, b, c and local's remote endpoint
		t.Errorf("got %d affinity sets and %d hairpin pairs, want 3 and 4", affinity, hairpin)
	}
}
