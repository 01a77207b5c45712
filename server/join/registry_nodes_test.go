package join_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/server/join"
)

// changes records a registry's OnChange calls once each has finished.
type changes struct {
	mu   sync.Mutex
	done []string
}

func (c *changes) hook(node string) {
	time.Sleep(50 * time.Millisecond) // a slow hook: an ACL file and a signal
	c.mu.Lock()
	c.done = append(c.done, node)
	c.mu.Unlock()
}

func (c *changes) finished() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.done)
}

// TestRegistryOnChange: the hook hears of a node's first certificate
// (finished by the time Record returns, whether Record or the watch
// applied it first), of its deletion, and not of a renewal; a second
// registry on the same store hears of both from its watch. Nodes lists
// the nodes with a current certificate.
func TestRegistryOnChange(t *testing.T) {
	e := newCluster(t)
	ctx := context.Background()
	var here, there changes
	mine := join.NewNodeCertRegistry(e.store, join.NodeCertRegistryConfig{Logger: quiet(), OnChange: here.hook})
	other := join.NewNodeCertRegistry(e.store, join.NodeCertRegistryConfig{Logger: quiet(), OnChange: there.hook})
	for _, r := range []*join.NodeCertRegistry{mine, other} {
		if err := r.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.Stop)
	}
	for i := range 5 {
		node := []string{"pi-a", "pi-b", "pi-c", "pi-d", "pi-e"}[i]
		recordCert(t, e, mine, node)
		if got := here.finished(); !slices.Contains(got, node) {
			t.Fatalf("OnChange for %s had not finished when Record returned (finished: %v)", node, got)
		}
	}
	if got := mine.Nodes(); !slices.Equal(got, []string{"pi-a", "pi-b", "pi-c", "pi-d", "pi-e"}) {
		t.Errorf("Nodes: got %v", got)
	}
	before := len(here.finished())
	recordCert(t, e, mine, "pi-a") // a renewal or a join again: still one certificate
	if err := mine.Revoke(ctx, "pi-b"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if got := here.finished()[before:]; !slices.Contains(got, "pi-b") || slices.Contains(got, "pi-a") {
		t.Errorf("OnChange after a renewal of pi-a and the deletion of pi-b: got %v, want pi-b only", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Equal(other.Nodes(), []string{"pi-a", "pi-c", "pi-d", "pi-e"}) || !slices.Contains(there.finished(), "pi-b") {
		if time.Now().After(deadline) {
			t.Fatalf("other server: Nodes %v, OnChange %v", other.Nodes(), there.finished())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recordCert issues a certificate for node and records it in r.
func recordCert(t *testing.T, e *cluster, r *join.NodeCertRegistry, node string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	saved := e.registry
	e.registry = r
	defer func() { e.registry = saved }()
	signNode(t, e, node, key)
}
