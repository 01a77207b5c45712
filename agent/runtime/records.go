package runtime

import (
	"context"
	"sync"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/containers"
)

// records keeps the containerd records of this package's containers, less
// their OCI specs, by container id. A record's only change while its
// container lives is the start-time label this package sets, so a kept
// record serves the polls that need its labels or snapshot (pod workers
// read each container's status every second, heartbeats and eviction
// rounds every few) with no call to containerd's container service: that
// call copies the whole spec, some 10 KiB, to the agent each time.
type records struct {
	mu   sync.Mutex
	byID map[string]containers.Container
	// epoch counts forgets: a record read before one may be stale and is
	// not kept.
	epoch uint64
}

// get returns the kept record of container id.
func (r *records) get(id string) (containers.Container, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	info, ok := r.byID[id]
	return info, ok
}

// now returns the epoch to hand to keep for a record read from now on.
func (r *records) now() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.epoch
}

// keep remembers the record of a container, read since epoch, unless a
// forget came in between.
func (r *records) keep(epoch uint64, info containers.Container) {
	info.Spec, info.Extensions = nil, nil
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.epoch != epoch {
		return
	}
	if r.byID == nil {
		r.byID = map[string]containers.Container{}
	}
	r.byID[info.ID] = info
}

// forget drops the record of container id: its labels change, or it goes.
func (r *records) forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.epoch++
	delete(r.byID, id)
}

// record returns the record of one of this package's containers, kept or
// read (and then kept), or ErrNotFound.
func (c *Containerd) record(ctx context.Context, id string) (containers.Container, error) {
	if info, ok := c.records.get(id); ok {
		return info, nil
	}
	epoch := c.records.now()
	ctr, err := c.load(ctx, id)
	if err != nil {
		return containers.Container{}, err
	}
	info, err := ctr.Info(ctx, containerd.WithoutRefreshedMetadata)
	if err != nil {
		return containers.Container{}, err
	}
	c.records.keep(epoch, info)
	return info, nil
}
