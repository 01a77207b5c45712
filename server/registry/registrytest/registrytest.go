// Package registrytest gives tests a real registry: SQLite in the test's
// temporary folder, closed when the test ends, with nothing logged.
package registrytest

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/registry"
)

// New opens a fresh SQLite datastore and a registry on it.
func New(t testing.TB) *registry.Registry {
	t.Helper()
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"),
		datastore.SQLiteConfig{Logger: quiet, CompactInterval: -1})
	if err != nil {
		t.Fatalf("open datastore: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	reg, err := registry.New(ctx, registry.Config{Store: store, Log: quiet})
	if err != nil {
		t.Fatalf("registry: %v", err)
	}
	return reg
}
