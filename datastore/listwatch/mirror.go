package listwatch

import (
	"context"
	"strings"

	"github.com/bramble-edge/bramble/datastore"
)

// Sink is told of the keys under a prefix, in revision order. key is the
// datastore key without the prefix.
type Sink interface {
	Upsert(key string, kv *datastore.KeyValue)
	Remove(key string)
}

// Mirror is a Handler that keeps a Sink in step key by key: a list becomes
// the upserts of the keys that are new or changed and the removals of the
// keys that vanished; an event becomes one upsert or removal.
type Mirror struct {
	prefix string
	sink   Sink
	known  map[string]int64 // key -> mod revision handed to the sink
}

var _ Handler = (*Mirror)(nil)

// NewMirror makes a Mirror of the keys under prefix for sink.
func NewMirror(prefix string, sink Sink) *Mirror {
	return &Mirror{prefix: prefix, sink: sink, known: map[string]int64{}}
}

// Len is the number of keys known.
func (m *Mirror) Len() int { return len(m.known) }

// ModRevision is the mod revision of key as last handed over.
func (m *Mirror) ModRevision(key string) (int64, bool) {
	rev, ok := m.known[key]
	return rev, ok
}

// OnReplace hands over the new and changed keys of the list, then removes
// the keys it lacks.
func (m *Mirror) OnReplace(_ context.Context, l *List) error {
	seen := map[string]bool{}
	err := l.Each(func(kv *datastore.KeyValue) {
		key := strings.TrimPrefix(kv.Key, m.prefix)
		seen[key] = true
		if m.known[key] != kv.ModRevision {
			m.known[key] = kv.ModRevision
			m.sink.Upsert(key, kv)
		}
	})
	if err != nil {
		return err
	}
	for key := range m.known {
		if !seen[key] {
			delete(m.known, key)
			m.sink.Remove(key)
		}
	}
	return nil
}

// OnEvent hands over one change.
func (m *Mirror) OnEvent(_ context.Context, ev *datastore.Event) {
	key := strings.TrimPrefix(ev.KV.Key, m.prefix)
	if ev.Type != datastore.EventDelete {
		m.known[key] = ev.KV.ModRevision
		m.sink.Upsert(key, ev.KV)
		return
	}
	if _, ok := m.known[key]; ok {
		delete(m.known, key)
		m.sink.Remove(key)
	}
}
