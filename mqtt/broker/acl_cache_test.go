package broker

import (
	"fmt"
	"testing"

	"github.com/bramble-edge/bramble/mqtt"
)

// FuzzUnderNode checks that the subtree test without concatenation says
// what the one with it says.
func FuzzUnderNode(f *testing.F) {
	f.Add("bramble/v1/nodes/pi-1/desired", "pi-1")
	f.Add("bramble/v1/nodes/pi-1/", "pi-1")
	f.Add("bramble/v1/nodes/pi-1", "pi-1")
	f.Add("bramble/v1/nodes/pi-10/desired", "pi-1")
	f.Add("bramble/v1/nodes/pi-1/#", "pi-1")
	f.Add("bramble/v1/watch/pi-1/x", "pi-1")
	f.Fuzz(func(t *testing.T, s, node string) {
		if got, want := underNode(s, node), under(s, mqtt.NodeSubtree(node)); got != want {
			t.Fatalf("underNode(%q, %q) = %v, want %v", s, node, got, want)
		}
	})
}

func TestIdentityCacheAgreesWithParse(t *testing.T) {
	var c identityCache
	for _, key := range []string{"node:pi-1", "viewer:grafana", "node:pi-1", "node:", "node:Bad_Name", "viewer:admin", "other:x", "pi-1"} {
		want, wantOK := parseIdentityKey(key)
		for range 2 { // a miss, then whatever the cache holds
			got, ok := c.lookup([]byte(key))
			if got != want || ok != wantOK {
				t.Errorf("lookup(%q) = %v, %v; want %v, %v", key, got, ok, want, wantOK)
			}
		}
	}
	if len(c.ids) != 2 {
		t.Errorf("cache holds %d identities, want the 2 valid ones: %v", len(c.ids), c.ids)
	}
}

func TestIdentityCacheIsBounded(t *testing.T) {
	var c identityCache
	for i := range maxCachedIdentities + 10 {
		key := fmt.Sprintf("node:n-%d", i)
		if id, ok := c.lookup([]byte(key)); !ok || id.key() != key {
			t.Fatalf("lookup(%q) = %v, %v", key, id, ok)
		}
	}
	if n := len(c.ids); n > maxCachedIdentities {
		t.Errorf("cache holds %d identities, bound %d", n, maxCachedIdentities)
	}
}
