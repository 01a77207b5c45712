package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFullDiskIsSurfaced (issue 14, defect 5) runs a real server whose
// data dir is a small tmpfs and fills the filesystem: /readyz must say the
// datastore is not ready and why, a write must be refused with 507
// InsufficientStorage saying the disk is full, and once space is freed the
// server writes again, records a DatastoreOutOfSpace Event then a
// DatastoreWritable one, and is ready.
func TestFullDiskIsSurfaced(t *testing.T) {
	e := &revokeEnv{t: t, dir: mountTmpfs(t, "24m")}
	e.start()
	admin := e.admin()
	ballast := fillFilesystem(t, e.dir)

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

// mountTmpfs mounts a tmpfs of size on a new directory, unmounted at
// cleanup. It needs root and fails loudly without it.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount a %s tmpfs (needs root): %v: %s", size, err, out)
	}
	t.Cleanup(func() { // registered before the server's Stop, so it runs after it
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fillFilesystem writes a file in dir until the filesystem is full and
// returns its path.
func fillFilesystem(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ballast")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := bytes.Repeat([]byte{1}, 64<<10)
	for {
		if _, err = f.Write(chunk); err != nil {
			break
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("fill %s: got %v, want ENOSPC", dir, err)
	}
	return path
}
