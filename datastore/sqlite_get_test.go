package datastore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

// Get reads without its context's cancellation (a point read is too short
// to interrupt), but a context that already ended still fails it.
func TestSQLiteGetWithEndedContext(t *testing.T) {
	st := openSQLite(t, "", datastore.SQLiteConfig{})
	if _, err := st.Create(context.Background(), "/g/k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if kv, err := st.Get(ctx, "/g/k"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with a cancelled context: got %v, %v; want context.Canceled", kv, err)
	}
	if kv, err := st.Get(context.Background(), "/g/k"); err != nil || string(kv.Value) != "v" {
		t.Fatalf("Get: got %v, %v; want v", kv, err)
	}
}
