package server

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/join"
)

// Deleting a Node revokes its certificate at the API and at the broker,
// after the watch that revokes has failed and been cut off several times,
// and also when the Node is deleted while the server is down.
func TestRevokedNodeRefusedAfterWatchFaultsAndRestart(t *testing.T) {
	e := &revokeEnv{t: t, dir: t.TempDir()}
	e.start()
	pi1 := e.join("pi-1")
	session, err := e.connect("pi-1", pi1)
	if err != nil {
		t.Fatalf("pi-1 connects to the broker: %v", err)
	}
	e.faults.FailWatches(nodesPrefix, 5, errors.New("injected watch failure"))
	if n := e.faults.CutWatches(nodesPrefix); n == 0 {
		t.Fatal("no watch of the Nodes to cut off")
	}
	waitUntil(5*time.Second, func() bool { return e.faults.Pending(nodesPrefix) == 0 })
	if code, body := e.call(e.admin(), http.MethodDelete, "/api/v1/nodes/pi-1", ""); code != http.StatusOK {
		t.Fatalf("delete Node pi-1: got %d %s", code, body)
	}
	eventually(t, "the broker drops pi-1's session", func() bool { return !session.IsConnectionOpen() })
	e.refused("pi-1", pi1)
	if n := e.faults.Pending(nodesPrefix); n != 0 {
		t.Errorf("injected watch failures never met: %d, want 0 (the revoker retries)", n)
	}

	// pi-2's Node is deleted while the server is down; pi-3's stays.
	pi2, pi3 := e.join("pi-2"), e.join("pi-3")
	for _, node := range []string{"pi-2", "pi-3"} {
		eventually(t, node+"'s record notes its Node", func() bool {
			kv, err := e.s.Store.Get(context.Background(), join.NodeCertPrefix+node)
			return err == nil && strings.Contains(string(kv.Value), `"nodeSeen":true`)
		})
	}
	e.s.Stop()
	deleteWhileDown(t, e.dir, nodesPrefix+"pi-2")
	e.start()
	e.refused("pi-2", pi2)
	e.refused("pi-1", pi1)
	if code, body := e.call(pi3, http.MethodGet, "/api/v1/nodes/pi-3", ""); code != http.StatusOK {
		t.Errorf("pi-3, whose Node stayed, at the API: got %d %s, want 200", code, body)
	}
	if c, err := e.connect("pi-3", pi3); err != nil {
		t.Errorf("pi-3, whose Node stayed, at the broker: %v", err)
	} else {
		c.Disconnect(0)
	}
	e.s.Stop()
	if left := serverGoroutines(); len(left) > 0 {
		t.Errorf("goroutines of the server still running after Stop:\n%s", strings.Join(left, "\n\n"))
	}
}

// serverGoroutines lists the goroutines running bramble code, other than
// the test's own.
func serverGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "bramble-edge/bramble/") && !strings.Contains(g, "_test.go") {
			out = append(out, g)
		}
	}
	return out
}

// deleteWhileDown deletes key from the data dir's datastore directly.
func deleteWhileDown(t *testing.T, dir, key string) {
	t.Helper()
	ctx := context.Background()
	store, err := datastore.OpenSQLite(ctx, datastore.DefaultSQLitePath(dir), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, _, err := store.Delete(ctx, key, 0); err != nil {
		t.Fatalf("delete %s while the server is down: %v", key, err)
	}
}
