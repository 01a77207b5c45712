package mqttdelivery

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/join"
	"github.com/bramble-edge/bramble/server/publish"
	"github.com/bramble-edge/bramble/server/registry"
)

// TestNodeFollowsASnapshotRestore (issue 14, defect 2): a node follows
// pods created after a snapshot, the server is stopped and the snapshot
// restored, and a pod is created after the restore. The node must end with
// exactly the server's view: the pod created after the restore, none of the
// pods the restore discarded (orphans), the ones the snapshot holds. It
// used to skip every change until the server's revision passed its own.
// Over the datastore the revision counter moves past the old one; into an
// empty data dir the server is behind the node, which is told to relist.
func TestNodeFollowsASnapshotRestore(t *testing.T) {
	for _, tc := range []struct {
		name  string
		empty bool
	}{{"over the datastore", false}, {"into an empty data dir", true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			e := newEmbedded(t, c)
			c.broker, c.newBus = e.url(), e.serverBus
			tuning := publish.Config{StallTimeout: 2 * time.Second, PublishTimeout: 2 * time.Second}
			c.startPublisher(tuning)
			t.Cleanup(c.stopPublisher)
			admin := newAdminClient(t, c)
			n := joinNodes(t, c, admin, 1)[0]
			w := newWorkload(t, admin, []string{n.name}, 7)
			w.createPod("kept", n.name)
			waitForView(t, admin, n, 20*time.Second)
			snap := c.saveSnapshot()

			for _, name := range []string{"discarded-1", "discarded-2", "discarded-3"} {
				w.createPod(name, n.name)
			}
			w.write("DELETE", forceDelete("kept"), "")
			waitForView(t, admin, n, 20*time.Second)
			held := n.cl.Rev()

			c.restore(snap, tc.empty, tuning)
			w.createPod("after-restore", n.name)
			waitForView(t, admin, n, 30*time.Second)
			view := admin.nodeView(n.name)
			if len(view) == 0 {
				t.Fatal("the server's view of the node is empty; want the kept and the new pod")
			}
			t.Logf("node held rev %d before the restore, %d after; server view %s", held, n.cl.Rev(), formatView(view))
		})
	}
}

// saveSnapshot writes a snapshot of the running store to a file.
func (c *cluster) saveSnapshot() string {
	c.t.Helper()
	f, err := os.Create(filepath.Join(c.t.TempDir(), "snap.db"))
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	if err := c.store.Snapshot(context.Background(), f); err != nil {
		c.t.Fatal(err)
	}
	return f.Name()
}

// restore stops the server half, restores snap (over the datastore, or
// into an emptied data dir) and starts it again on the restored store, as
// `bramble snapshot restore` and a server start do.
func (c *cluster) restore(snap string, empty bool, tuning publish.Config) {
	c.t.Helper()
	ctx := context.Background()
	c.stopPublisher()
	c.registry.Stop()
	c.store.Close()
	path := filepath.Join(c.dir, "db", "state.db")
	if empty {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(path + suffix)
		}
	}
	if err := datastore.SnapshotRestore(ctx, snap, path); err != nil {
		c.t.Fatalf("SnapshotRestore: %v", err)
	}
	var err error
	c.store, err = datastore.OpenSQLite(ctx, path, datastore.SQLiteConfig{Logger: quiet(), CompactInterval: -1})
	if err != nil {
		c.t.Fatal(err)
	}
	c.registry = join.NewNodeCertRegistry(c.store, join.NodeCertRegistryConfig{Logger: quiet()})
	if err := c.registry.Start(ctx); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(c.registry.Stop)
	reg, err := registry.New(ctx, registry.Config{Store: c.store, Log: quiet()})
	if err != nil {
		c.t.Fatal(err)
	}
	c.tokens = join.NewTokenStore(c.store, reg.Client(), join.TokenStoreConfig{Logger: quiet()})
	c.buildHandler()
	c.startPublisher(tuning)
}
