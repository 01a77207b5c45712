package join_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore/listwatch"
	"github.com/bramble-edge/bramble/datastore/storetest"
	"github.com/bramble-edge/bramble/server/join"
)

const nodesPrefix = "/registry/core/nodes/"

var fastBackoff = listwatch.Backoff{Min: time.Millisecond, Max: 20 * time.Millisecond}

// startRevoker runs a revoker of c's registry over store until the test
// ends.
func startRevoker(t testing.TB, c *cluster, store *storetest.Faults) {
	t.Helper()
	v := join.NewNodeRevoker(store, c.registry, listwatch.Config{Logger: quiet(), Backoff: fastBackoff})
	if err := v.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Stop)
}

// eventually polls cond for up to 10 s.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 10s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The revoker keeps revoking through failed and cut-off watches.
func TestRevokerSurvivesWatchFaults(t *testing.T) {
	c := newCluster(t)
	faults := storetest.NewFaults(c.store)
	startRevoker(t, c, faults)
	token := c.newToken(0)
	for i, node := range []string{"pi-1", "pi-2", "pi-3"} {
		c.createNode(node)
		creds := mustJoin(t, c, token, node)
		cfg := nodeTLS(t, creds)
		if code, body := c.call(cfg, http.MethodGet, "/api/v1/nodes/"+node, ""); code != http.StatusOK {
			t.Fatalf("%s before the delete: got %d %s, want 200", node, code, body)
		}
		faults.FailWatches(nodesPrefix, 3+i, errors.New("injected watch failure"))
		if faults.CutWatches(nodesPrefix) != 1 {
			t.Fatalf("cut-offs: want the revoker's one watch cut")
		}
		eventually(t, "the injected failures are met", func() bool { return faults.Pending(nodesPrefix) == 0 })
		if code, body := c.call(c.adminTLS(), http.MethodDelete, "/api/v1/nodes/"+node, ""); code != http.StatusOK {
			t.Fatalf("delete %s: got %d %s", node, code, body)
		}
		eventually(t, node+"'s certificate refused after its Node was deleted", func() bool {
			code, _ := c.call(cfg, http.MethodGet, "/api/v1/nodes/"+node, "")
			return code == http.StatusUnauthorized
		})
	}
}

// Nodes deleted while no revoker ran lose their certificates when one
// starts, and again when its watch falls behind compaction; a node that
// joined but whose Node does not exist yet keeps its certificate.
func TestRevokerCatchesUpOnDeletesItMissed(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	faults := storetest.NewFaults(c.store)
	token := c.newToken(0)
	c.createNode("gone-early")
	early := nodeTLS(t, mustJoin(t, c, token, "gone-early"))
	joining := nodeTLS(t, mustJoin(t, c, token, "joining"))
	c.createNode("gone-later")
	later := nodeTLS(t, mustJoin(t, c, token, "gone-later"))
	if _, _, err := c.store.Delete(ctx, nodesPrefix+"gone-early", 0); err != nil {
		t.Fatal(err)
	}
	startRevoker(t, c, faults)
	if code, body := c.call(early, http.MethodGet, "/api/v1/nodes/gone-early", ""); code != http.StatusUnauthorized {
		t.Fatalf("node deleted before the revoker started: got %d %s, want 401", code, body)
	}

	// The revoker's watch stops working; meanwhile the Node goes and the
	// history is compacted. Once watches work again it must list again.
	faults.FailWatches(nodesPrefix, 1000, errors.New("injected watch failure"))
	faults.CutWatches(nodesPrefix)
	if _, _, err := c.store.Delete(ctx, nodesPrefix+"gone-later", 0); err != nil {
		t.Fatal(err)
	}
	cur, _ := c.store.CurrentRevision(ctx)
	if err := c.store.Compact(ctx, cur); err != nil {
		t.Fatal(err)
	}
	faults.Heal(nodesPrefix)
	eventually(t, "gone-later's certificate refused after the relist", func() bool {
		code, _ := c.call(later, http.MethodGet, "/api/v1/nodes/gone-later", "")
		return code == http.StatusUnauthorized
	})
	c.createNode("joining")
	if code, body := c.call(joining, http.MethodGet, "/api/v1/nodes/joining", ""); code != http.StatusOK {
		t.Fatalf("node that joined before its Node existed: got %d %s, want 200", code, body)
	}
}
