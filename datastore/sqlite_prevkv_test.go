package datastore_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// The writer reads a key's previous value for the event's PrevKV below
// database/sql, which copied every []byte it scanned; the value must still
// be memory of its own, not a buffer the next read reuses. Events delivered
// earlier keep their PrevKV and KV while many more writes of values of the
// same size go through.
func TestSQLitePrevKVOutlivesLaterWrites(t *testing.T) {
	st := openSQLite(t, "", datastore.SQLiteConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := st.Watch(ctx, "/p/", 0)
	if err != nil {
		t.Fatal(err)
	}
	value := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, 1000) }
	rev, err := st.Create(ctx, "/p/k", value(0))
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	for i := 1; i <= n; i++ {
		if rev, err = st.Update(ctx, "/p/k", value(i), rev); err != nil {
			t.Fatal(err)
		}
	}
	events := collect(t, ch, n+1)
	for i, ev := range events[1:] {
		if !bytes.Equal(ev.PrevKV.Value, value(i)) || !bytes.Equal(ev.KV.Value, value(i+1)) {
			t.Fatalf("update %d after %d later writes: got prev %q..., value %q...; want %q..., %q...",
				i+1, n-i-1, head(ev.PrevKV.Value), head(ev.KV.Value), head(value(i)), head(value(i+1)))
		}
	}
	_, prev, err := st.Delete(ctx, "/p/k", rev)
	if err != nil || !bytes.Equal(prev.Value, value(n)) {
		t.Fatalf("Delete: got %v, %v; want the last value", prev, err)
	}
}

func head(b []byte) string { return fmt.Sprintf("%.8s", b) }

// collect takes n events from ch.
func collect(t *testing.T, ch <-chan []datastore.Event, n int) []datastore.Event {
	t.Helper()
	var events []datastore.Event
	for len(events) < n {
		select {
		case evs := <-ch:
			events = append(events, evs...)
		case <-time.After(10 * time.Second):
			t.Fatalf("got %d events, want %d", len(events), n)
		}
	}
	return events
}
