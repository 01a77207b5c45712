package registry

import (
	"context"

	"github.com/bramble-edge/bramble/api"
)

// Attributes describe one write to the admission plugins.
type Attributes struct {
	Resource    *api.Resource
	Subresource string // "" or "status"
	// Object is the object about to be stored, already defaulted and
	// validated by its kind's strategy. A plugin may change it (a
	// LimitRange's defaults, a priority, an allocated ClusterIP).
	Object api.Object
	// Old is the stored object on an update, nil on a create.
	Old    api.Object
	DryRun bool
	// Revision is the store's revision when admission began: every write
	// that finished before this one was asked for is at or below it. A
	// plugin's reads of the policy objects (limit ranges, quotas' limits,
	// the default priority) need be no older than this (ListOptions'
	// ResourceVersion), and after the first such read the shared cache
	// answers the rest without waiting for the writes since.
	Revision int64
}

// Create reports whether the write creates a new object.
func (a *Attributes) Create() bool { return a.Old == nil }

// Admitter is admission that looks beyond the object written: quotas,
// limit ranges, priorities, service accounts, address and port
// allocation. Admit runs after the kind's strategy and before the store
// write, for every caller of the registry (the registry's own writes of
// bindings and deletion marks excepted). An error refuses the write; it
// should be an API status error (see errors.go). A non-nil release is
// called exactly once when the write is over, with whether it was stored,
// so that a plugin can give back what it reserved for a write that failed.
type Admitter interface {
	Admit(ctx context.Context, a *Attributes) (release func(stored bool), err error)
}

// Use adds admission plugins, run in the order added. Call it before the
// registry serves writes.
func (r *Registry) Use(plugins ...Admitter) {
	r.admitters = append(r.admitters, plugins...)
}

// runAdmitters runs every plugin on a; the returned release (never nil)
// releases what each of them reserved. When one refuses, what the earlier
// ones reserved is released at once.
func (r *Registry) runAdmitters(ctx context.Context, a *Attributes) (func(stored bool), error) {
	if a.Revision == 0 && len(r.admitters) > 0 {
		rev, err := r.store.CurrentRevision(ctx)
		if err != nil {
			return noRelease, StoreError(err, a.Resource, a.Object.GetName())
		}
		a.Revision = rev
	}
	var releases []func(bool)
	for _, p := range r.admitters {
		rel, err := p.Admit(ctx, a)
		if err != nil {
			releaseEach(releases, false)
			return noRelease, err
		}
		if rel != nil {
			releases = append(releases, rel)
		}
	}
	switch len(releases) {
	case 0: // most writes: nothing reserved, nothing to allocate
		return noRelease, nil
	case 1:
		return releases[0], nil
	}
	return func(stored bool) { releaseEach(releases, stored) }, nil
}

// noRelease is the release of a write no plugin reserved anything for.
func noRelease(bool) {}

func releaseEach(releases []func(bool), stored bool) {
	for _, rel := range releases {
		rel(stored)
	}
}

// DeleteAdmitter is a plugin that may also refuse a delete (the system
// priority classes may not be deleted, for example). A plugin added with
// Use that implements it is asked before every delete.
type DeleteAdmitter interface {
	AdmitDelete(ctx context.Context, res *api.Resource, obj api.Object) error
}

// admitDelete asks the plugins that judge deletes about obj.
func (r *Registry) admitDelete(ctx context.Context, res *api.Resource, obj api.Object) error {
	for _, p := range r.admitters {
		if d, ok := p.(DeleteAdmitter); ok {
			if err := d.AdmitDelete(ctx, res, obj); err != nil {
				return err
			}
		}
	}
	return nil
}
