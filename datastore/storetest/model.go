package storetest

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

// model is the expected state of a store a test writes to alone: the live
// keys after every revision, and the events the writes produced.
type model struct {
	live   map[string]*datastore.KeyValue
	states map[int64][]string // rev -> keysOf(live) after that write
	events []datastore.Event
	first  int64
	last   int64
}

func newModel() *model {
	return &model{live: map[string]*datastore.KeyValue{}, states: map[int64][]string{}}
}

// apply performs one write ("create", "update" at the live revision, or
// "delete") and records what the store must now hold.
func (m *model) apply(t testing.TB, st datastore.Store, op, key, value string) int64 {
	t.Helper()
	prev := m.live[key]
	var rev int64
	ev := datastore.Event{PrevKV: prev}
	switch op {
	case "create":
		rev = mustCreate(t, st, key, value)
		ev.Type = datastore.EventCreate
		m.live[key] = &datastore.KeyValue{Key: key, Value: []byte(value), CreateRevision: rev, ModRevision: rev}
	case "update":
		rev = mustUpdate(t, st, key, value, prev.ModRevision)
		ev.Type = datastore.EventUpdate
		m.live[key] = &datastore.KeyValue{Key: key, Value: []byte(value), CreateRevision: prev.CreateRevision, ModRevision: rev}
	case "delete":
		rev = mustDelete(t, st, key, prev.ModRevision)
		ev.Type = datastore.EventDelete
		delete(m.live, key)
	default:
		t.Fatalf("model: unknown op %q", op)
	}
	ev.Revision = rev
	ev.KV = m.live[key]
	if op == "delete" {
		ev.KV = &datastore.KeyValue{Key: key, Value: prev.Value, CreateRevision: prev.CreateRevision, ModRevision: rev}
	}
	m.events = append(m.events, ev)
	if m.first == 0 {
		m.first = rev
	}
	m.last = rev
	m.states[rev] = m.snapshot()
	return rev
}

func (m *model) snapshot() []string {
	keys := slices.Sorted(maps.Keys(m.live))
	out := make([]string, len(keys))
	for i, k := range keys {
		kv := m.live[k]
		out[i] = fmt.Sprintf("%s=%s@%d", kv.Key, kv.Value, kv.ModRevision)
	}
	return out
}

// at is the live state after revision rev.
func (m *model) at(rev int64) []string {
	if s, ok := m.states[rev]; ok {
		return s
	}
	panic(fmt.Sprintf("model has no state at revision %d", rev))
}

// eventsAfter returns the recorded events with revisions > rev.
func (m *model) eventsAfter(rev int64) []datastore.Event {
	var out []datastore.Event
	for _, ev := range m.events {
		if ev.Revision > rev {
			out = append(out, ev)
		}
	}
	return out
}

// checkEvent compares a received event with the expected one, PrevKV
// included.
func checkEvent(t testing.TB, what string, got, want datastore.Event) {
	t.Helper()
	if got.Type != want.Type || got.Revision != want.Revision || fmtKV(got.KV) != fmtKV(want.KV) || fmtKV(got.PrevKV) != fmtKV(want.PrevKV) {
		t.Fatalf("%s: got %s, want %s", what, fmtEvent(got), fmtEvent(want))
	}
}

func fmtEvent(ev datastore.Event) string {
	return fmt.Sprintf("%s@%d kv=%s prev=%s", ev.Type, ev.Revision, fmtKV(ev.KV), fmtKV(ev.PrevKV))
}
