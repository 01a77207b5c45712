//go:build chaos

package chaos

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestKill9UnderWriters kills the real server with SIGKILL, several
// times, while concurrent writers create ConfigMaps through the API; each
// writer stops at its first failed request (whether that write committed
// is unknown). After every restart every acknowledged write must be there
// with the resourceVersion it was acknowledged with; at the end the
// datastore's revision log must run from 1 to its last revision with no
// gap (revisionsGapFree).
func TestKill9UnderWriters(t *testing.T) {
	t.Parallel()
	writers, rounds := pick(16, 64), pick(3, 15)
	hold := pick(2*time.Second, 8*time.Second)
	args := []string{"--datastore-compact-interval", "1h"} // compaction would punch holes in the log
	s := cluster.StartServer(t, args...)
	c := cluster.NewClient(t, s.Kubeconfig)
	acked := map[string]string{} // name -> acknowledged resourceVersion
	for round := range rounds {
		write := func(w, seq int) (string, string, bool) {
			name := fmt.Sprintf("r%d-w%d-%d", round, w, seq)
			rv, ok := create(c, name, seq)
			return name, rv, ok
		}
		got, _ := writeUntilKilled(writers, write, hold+time.Duration(rand.IntN(1000))*time.Millisecond, s.Kill)
		for name, rv := range got {
			acked[name] = rv
		}
		s.Start(args...)
		if lost := lostWrites(t, c, acked, true); len(lost) > 0 {
			t.Fatalf("round %d: %d of %d acknowledged writes lost after kill -9, e.g. %v", round, len(lost), len(acked), lost[:min(5, len(lost))])
		}
	}
	s.Stop()
	revs := revisionsGapFree(t, s.DataDir)
	figure("kill9-%d-writers-%d-rounds: acked=%d lost=0 revisions 1..%d gap-free", writers, rounds, len(acked), revs)
}

// writeUntilKilled runs writers calling write(writer, seq) until their
// first failure, calls kill after hold, and returns the last resourceVersion
// acknowledged for each name written and how many writes were acknowledged.
func writeUntilKilled(writers int, write func(w, seq int) (name, rv string, ok bool), hold time.Duration, kill func()) (map[string]string, int) {
	var mu sync.Mutex
	acked, n := map[string]string{}, 0
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := 0; ; seq++ {
				name, rv, ok := write(w, seq)
				if !ok {
					return
				}
				mu.Lock()
				acked[name] = rv
				n++
				mu.Unlock()
			}
		}()
	}
	time.Sleep(hold)
	kill()
	wg.Wait()
	return acked, n
}

// create writes one ConfigMap and returns its acknowledged resourceVersion.
func create(c *cluster.Client, name string, seq int) (string, bool) {
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"seq":"%d"}}`, name, seq)
	r, err := c.Try(http.MethodPost, "/api/v1/namespaces/default/configmaps",
		http.Header{"Content-Type": {"application/json"}}, []byte(body))
	if err != nil || r.Code != http.StatusCreated {
		return "", false
	}
	return resourceVersion(r.Body)
}

// resourceVersion reads an acknowledged object's resourceVersion.
func resourceVersion(body []byte) (string, bool) {
	var cm struct {
		Metadata struct{ ResourceVersion string }
	}
	if json.Unmarshal(body, &cm) != nil || cm.Metadata.ResourceVersion == "" {
		return "", false
	}
	return cm.Metadata.ResourceVersion, true
}

// lostWrites lists the acknowledged ConfigMaps that are missing or hold
// another resourceVersion than acknowledged (exact), or an older one (not
// exact: a write after the acknowledged one may have committed).
func lostWrites(t *testing.T, c *cluster.Client, acked map[string]string, exact bool) []string {
	t.Helper()
	r := c.Do(http.MethodGet, "/api/v1/namespaces/default/configmaps", "", nil)
	if r.Code != http.StatusOK {
		t.Fatalf("list configmaps: got %d %s", r.Code, r.Body)
	}
	var list struct {
		Items []struct {
			Metadata struct{ Name, ResourceVersion string }
		}
	}
	if err := json.Unmarshal(r.Body, &list); err != nil {
		t.Fatal(err)
	}
	have := map[string]string{}
	for _, it := range list.Items {
		have[it.Metadata.Name] = it.Metadata.ResourceVersion
	}
	var lost []string
	for name, rv := range acked {
		got, _ := strconv.ParseInt(have[name], 10, 64)
		want, _ := strconv.ParseInt(rv, 10, 64)
		if have[name] == "" || got < want || (exact && got != want) {
			lost = append(lost, fmt.Sprintf("%s (acknowledged at %s, found %q)", name, rv, have[name]))
		}
	}
	return lost
}
