package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/bramble-edge/bramble/mqtt"
)

// Memory is an Applier that keeps the node's view in a map: what hollow
// agents and tests need.
type Memory struct {
	mu   sync.Mutex
	rev  int64
	objs map[mqtt.ObjectRef]MemoryObject
}

// MemoryObject is one object of the view.
type MemoryObject struct {
	ResourceVersion int64
	JSON            json.RawMessage
}

var _ Applier = (*Memory)(nil)

// NewMemory returns an empty view.
func NewMemory() *Memory { return &Memory{objs: map[mqtt.ObjectRef]MemoryObject{}} }

// Apply upserts ADDED and MODIFIED objects and removes DELETED ones.
func (m *Memory) Apply(_ context.Context, ev mqtt.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range ev.Changes {
		if c.Type == mqtt.Deleted {
			delete(m.objs, c.ObjectRef)
			continue
		}
		rv := objectRV(c.Object)
		if rv <= 0 {
			return fmt.Errorf("apply %s at %d: object has no resourceVersion", c.ObjectRef, ev.Rev)
		}
		m.objs[c.ObjectRef] = MemoryObject{ResourceVersion: rv, JSON: c.Object}
	}
	m.rev = ev.Rev
	return nil
}

// Resync replaces the view.
func (m *Memory) Resync(_ context.Context, st State) error {
	objs := make(map[mqtt.ObjectRef]MemoryObject, len(st.Objects))
	for _, o := range st.Objects {
		rv := objectRV(o.Object)
		if rv <= 0 {
			return fmt.Errorf("resync %s: object has no resourceVersion", o.ObjectRef)
		}
		objs[o.ObjectRef] = MemoryObject{ResourceVersion: rv, JSON: o.Object}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objs, m.rev = objs, st.Rev
	return nil
}

// Rev is the revision of the last Apply or Resync.
func (m *Memory) Rev() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rev
}

// Versions returns every object's resourceVersion.
func (m *Memory) Versions() map[mqtt.ObjectRef]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[mqtt.ObjectRef]int64, len(m.objs))
	for r, o := range m.objs {
		out[r] = o.ResourceVersion
	}
	return out
}

// Get returns one object of the view.
func (m *Memory) Get(ref mqtt.ObjectRef) (MemoryObject, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[ref]
	return o, ok
}
