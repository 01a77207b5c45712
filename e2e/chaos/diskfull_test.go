//go:build chaos

package chaos

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/tmpfstest"
)

// TestServerDiskFull runs the server on a small tmpfs and fills it while
// writers create ConfigMaps: writes must be refused with 507
// InsufficientStorage (never another 5xx) and /readyz must say the disk is
// full; once the ballast is removed writes resume without a restart, and
// no acknowledged write is lost, before or after a kill -9 and restart.
func TestServerDiskFull(t *testing.T) {
	t.Parallel()
	dir := tmpfstest.Mount(t, "40m")
	s := cluster.StartServerWithDataDir(t, filepath.Join(dir, "data"))
	c := cluster.NewClient(t, s.Kubeconfig)
	acked, refused := writeWhileFilling(t, c, dir)
	if refused == 0 {
		t.Fatalf("no write was refused with 507 on the full disk (%d acknowledged)", len(acked))
	}
	if r := c.Do(http.MethodGet, "/readyz", "", nil); r.Code != http.StatusServiceUnavailable || !strings.Contains(string(r.Body), "no space left") {
		t.Fatalf("/readyz on a full disk: got %d %s, want 503 naming the full disk", r.Code, r.Body)
	}
	if err := os.Remove(filepath.Join(dir, "ballast")); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	cluster.WaitFor(t, 30*time.Second, func() bool {
		_, ok := create(c, "after-free", 0)
		return ok
	}, "a write to succeed once space was freed, without a restart")
	resumed := time.Since(freed)
	cluster.WaitFor(t, 30*time.Second, func() bool { return c.Do(http.MethodGet, "/readyz", "", nil).Code == http.StatusOK },
		"/readyz to be ok again")
	checkAcked(t, c, acked, "after the disk was freed")
	s.Kill()
	s.Start()
	checkAcked(t, c, acked, "after kill -9 and restart")
	figure("diskfull-server: acked=%d refused-507=%d lost=0 readyz=503 writes resumed %s after freeing, no restart",
		len(acked), refused, resumed.Round(time.Millisecond))
}

var jsonHeader = http.Header{"Content-Type": {"application/json"}}

func checkAcked(t *testing.T, c *cluster.Client, acked map[string]string, when string) {
	t.Helper()
	if lost := lostWrites(t, c, acked, true); len(lost) > 0 {
		t.Fatalf("%s: %d of %d acknowledged writes lost, e.g. %v", when, len(lost), len(acked), lost[:min(5, len(lost))])
	}
}

// writeWhileFilling runs 8 writers creating 16 KiB ConfigMaps, fills the
// filesystem of dir under them, and returns what was acknowledged and how
// many writes were refused with 507; any other answer fails the test.
func writeWhileFilling(t *testing.T, c *cluster.Client, dir string) (map[string]string, int) {
	t.Helper()
	value := strings.Repeat("x", 16<<10)
	acked, refused := map[string]string{}, 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := 0; ; seq++ {
				name := fmt.Sprintf("full-w%d-%d", w, seq)
				r, err := c.Try(http.MethodPost, "/api/v1/namespaces/default/configmaps", jsonHeader,
					fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"v":%q}}`, name, value))
				mu.Lock()
				switch {
				case err != nil:
					t.Errorf("%s: %v", name, err)
				case r.Code == http.StatusCreated:
					rv, _ := resourceVersion(r.Body)
					acked[name] = rv
				case r.Code == http.StatusInsufficientStorage && strings.Contains(string(r.Body), `"reason":"InsufficientStorage"`):
					refused++
				default:
					t.Errorf("%s on a filling disk: got %d %s, want 201 or 507 InsufficientStorage", name, r.Code, r.Body)
				}
				mu.Unlock()
				if err != nil || r.Code != http.StatusCreated {
					return
				}
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	tmpfstest.Fill(t, dir)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return acked, refused
}
