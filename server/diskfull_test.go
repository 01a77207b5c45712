package server

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/internal/tmpfstest"
)

// TestFullDiskIsSurfaced (issue 14, defect 5) runs a real server whose
// data dir is a small tmpfs and fills the filesystem: /readyz must say the
// datastore is not ready and why, a write must be refused with 507
// InsufficientStorage saying the disk is full, and once space is freed the
// server writes again, records a DatastoreOutOfSpace Event then a
// DatastoreWritable one, and is ready.
func TestFullDiskIsSurfaced(t *testing.T) {
	e := &revokeEnv{t: t, dir: tmpfstest.Mount(t, "24m")}
	e.start()
	admin := e.admin()
	ballast := tmpfstest.Fill(t, e.dir)

	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big-%d"},"data":{"k":"` + strings.Repeat("x", 256<<10) + `"}}`
	code, body := 0, ""
	for i := 0; i < 200; i++ {
		if code, body = e.call(admin, http.MethodPost, "/api/v1/namespaces/default/configmaps", fmt.Sprintf(cm, i)); code != http.StatusCreated {
			break
		}
	}
	if code != http.StatusInsufficientStorage || !strings.Contains(body, `"reason":"InsufficientStorage"`) ||
		!strings.Contains(body, "disk is full") {
		t.Fatalf("write on a full disk: got %d %s, want 507 InsufficientStorage saying the disk is full", code, body)
	}
	if code, body := e.call(admin, http.MethodGet, "/readyz", ""); code != http.StatusServiceUnavailable ||
		!strings.Contains(body, "no space left on device") {
		t.Fatalf("/readyz on a full disk: got %d %q, want 503 naming the full disk", code, body)
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, events := e.call(admin, http.MethodGet, "/api/v1/namespaces/default/events", "")
		code, ready := e.call(admin, http.MethodGet, "/readyz", "")
		if strings.Contains(events, `"reason":"DatastoreOutOfSpace"`) && strings.Contains(events, `"reason":"DatastoreWritable"`) &&
			code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after space was freed: /readyz %d %q; events %s; want ok, a DatastoreOutOfSpace and a DatastoreWritable event", code, ready, events)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code, body := e.call(admin, http.MethodPost, "/api/v1/namespaces/default/configmaps", fmt.Sprintf(cm, 999)); code != http.StatusCreated {
		t.Fatalf("write after space was freed: got %d %s", code, body)
	}
}
