package datastore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/internal/tmpfstest"
)

// TestFullDiskIsReported (issue 14, defect 5): on a real full filesystem
// writes fail with ErrNoSpace, Health says why while reads go on, and
// once space is freed writes succeed and Health is nil again.
func TestFullDiskIsReported(t *testing.T) {
	ctx := context.Background()
	dir := tmpfstest.Mount(t, "4m")
	ballast := filepath.Join(dir, "ballast")
	if err := os.WriteFile(ballast, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	grace := 200 * time.Millisecond
	st := openSQLite(t, filepath.Join(dir, "state.db"), datastore.SQLiteConfig{CompactInterval: -1, SpaceGrace: grace})
	if _, err := st.Create(ctx, "/k/first", []byte("v")); err != nil {
		t.Fatal(err)
	}
	value := bytes.Repeat([]byte("x"), 32<<10)
	var err error
	for i := 0; err == nil; i++ {
		if i > 1000 {
			t.Fatal("4 MiB filesystem never filled")
		}
		_, err = st.Create(ctx, fmt.Sprintf("/k/%04d", i), value)
	}
	if !errors.Is(err, datastore.ErrNoSpace) {
		t.Fatalf("write on a full disk: got %v, want ErrNoSpace", err)
	}
	if h := st.Health(); !errors.Is(h, datastore.ErrNoSpace) || !strings.Contains(h.Error(), "failed since") {
		t.Fatalf("Health on a full disk: got %v, want ErrNoSpace saying since when", h)
	}
	if kv, err := st.Get(ctx, "/k/first"); err != nil || string(kv.Value) != "v" {
		t.Fatalf("read on a full disk: got %v, %v, want /k/first=v", kv, err)
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(ctx, "/k/after", []byte("v")); err != nil {
		t.Fatalf("write after space was freed: %v", err)
	}
	if h := st.Health(); h == nil {
		t.Fatal("Health right after the failure: got nil, want the failure until the grace has passed")
	}
	if n := st.SpaceFailures(); n == 0 {
		t.Fatal("SpaceFailures: got 0, want the failed batches counted")
	}
	time.Sleep(grace)
	if h := st.Health(); h != nil {
		t.Fatalf("Health after space was freed: got %v, want nil", h)
	}
}
