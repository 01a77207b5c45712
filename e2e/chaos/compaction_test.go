//go:build chaos

package chaos

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestKill9DuringCompaction kills the server with SIGKILL while writers
// update a small set of ConfigMaps over and over and compaction runs every
// 100 ms keeping 50 revisions: nearly every write supersedes a revision
// the next compaction deletes, so the kills land in and around
// compactions. After each restart no acknowledged update may be missing
// or older than acknowledged, and SQLite's integrity check must pass.
func TestKill9DuringCompaction(t *testing.T) {
	t.Parallel()
	writers, rounds, hold := pick(8, 32), pick(3, 10), pick(1500*time.Millisecond, 5*time.Second)
	args := []string{"--datastore-compact-interval", "100ms", "--datastore-compact-retain", "50"}
	s := cluster.StartServer(t, args...)
	c := cluster.NewClient(t, s.Kubeconfig)
	const keys = 8
	for w := range writers {
		for k := range keys {
			if _, ok := create(c, fmt.Sprintf("c-w%d-k%d", w, k), 0); !ok {
				t.Fatalf("create c-w%d-k%d failed", w, k)
			}
		}
	}
	acked, total := map[string]string{}, 0
	for round := range rounds {
		write := func(w, seq int) (string, string, bool) {
			name := fmt.Sprintf("c-w%d-k%d", w, seq%keys)
			rv, ok := update(c, name, seq)
			return name, rv, ok
		}
		got, n := writeUntilKilled(writers, write, hold+time.Duration(rand.IntN(500))*time.Millisecond, s.Kill)
		for name, rv := range got {
			acked[name] = rv
		}
		total += n
		if out := sqlite(t, s.DataDir, "PRAGMA integrity_check;"); strings.TrimSpace(out) != "ok" {
			t.Fatalf("round %d: integrity check after kill -9: %s", round, out)
		}
		s.Start(args...)
		if lost := lostWrites(t, c, acked, false); len(lost) > 0 {
			t.Fatalf("round %d: %d acknowledged updates lost after kill -9 during compaction, e.g. %v", round, len(lost), lost[:min(5, len(lost))])
		}
	}
	compacted := strings.TrimSpace(sqlite(t, s.DataDir, "SELECT value FROM meta WHERE name = 'compact_rev';"))
	if compacted == "0" {
		t.Fatal("compaction never ran: the kills did not land among compactions")
	}
	figure("kill9-compaction-%d-writers-%d-rounds: acked=%d lost=0 compacted-to=%s integrity ok", writers, rounds, total, compacted)
}

// update changes a ConfigMap's data with a merge patch and returns the
// acknowledged resourceVersion.
func update(c *cluster.Client, name string, seq int) (string, bool) {
	r, err := c.Try(http.MethodPatch, "/api/v1/namespaces/default/configmaps/"+name,
		http.Header{"Content-Type": {"application/merge-patch+json"}}, fmt.Appendf(nil, `{"data":{"seq":"%d"}}`, seq))
	if err != nil || r.Code != http.StatusOK {
		return "", false
	}
	return resourceVersion(r.Body)
}
