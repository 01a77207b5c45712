package registry

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// nsWrites is the registry's datastore with a note of the revision of the
// last write made through it to namespaces and to each of the policy kinds
// (markedKinds). Every such write of a running server is the registry's,
// so a shared cache that has applied that revision knows every namespace
// (or every object of the kind) as the datastore does: a create's
// namespace check and admission's policy reads can then be answered from
// the cache however far behind it is on other kinds (cachedNamespace,
// Attributes.ReadRevision). With several servers on one datastore (HA, not
// built yet) another server's writes are not noted here, and those reads
// must follow the kinds' watch instead.
type nsWrites struct {
	datastore.Store
	marks []writeMark
}

// writeMark is the revision of the last write under one kind's prefix.
type writeMark struct {
	prefix string
	last   *atomic.Int64
}

// markedKinds are the kinds whose last write the registry notes besides
// namespaces: those admission plugins read for every pod.
var markedKinds = []*api.Resource{
	api.MustLookup("", "v1", "serviceaccounts"),
	api.MustLookup("", "v1", "limitranges"),
	api.MustLookup("", "v1", "resourcequotas"),
	api.MustLookup("scheduling.k8s.io", "v1", "priorityclasses"),
}

// newNSWrites notes namespace writes in ns and those of markedKinds in
// kinds (one each, in markedKinds' order).
func newNSWrites(s datastore.Store, ns *atomic.Int64, kinds []atomic.Int64) nsWrites {
	marks := []writeMark{{prefix: namespacesResource.Prefix(""), last: ns}}
	for i, res := range markedKinds {
		marks = append(marks, writeMark{prefix: res.Prefix(""), last: &kinds[i]})
	}
	return nsWrites{Store: s, marks: marks}
}

func (s nsWrites) note(key string, rev int64, err error) {
	if err != nil {
		return
	}
	for _, m := range s.marks {
		if strings.HasPrefix(key, m.prefix) {
			raiseTo(m.last, rev)
			return
		}
	}
}

// raiseTo sets a to v if v is larger.
func raiseTo(a *atomic.Int64, v int64) {
	for {
		cur := a.Load()
		if v <= cur || a.CompareAndSwap(cur, v) {
			return
		}
	}
}

func (s nsWrites) Create(ctx context.Context, key string, value []byte) (int64, error) {
	rev, err := s.Store.Create(ctx, key, value)
	s.note(key, rev, err)
	return rev, err
}

func (s nsWrites) Update(ctx context.Context, key string, value []byte, expectRev int64) (int64, error) {
	rev, err := s.Store.Update(ctx, key, value, expectRev)
	s.note(key, rev, err)
	return rev, err
}

func (s nsWrites) Delete(ctx context.Context, key string, expectRev int64) (int64, *datastore.KeyValue, error) {
	rev, prev, err := s.Store.Delete(ctx, key, expectRev)
	s.note(key, rev, err)
	return rev, prev, err
}

// lastWrite is the revision a shared cache must have applied to know
// every object of res as the datastore does; ok is false when res is not
// one of markedKinds.
func (r *Registry) lastWrite(res *api.Resource) (rev int64, ok bool) {
	for i, k := range markedKinds {
		if k == res {
			return r.kindRevs[i].Load(), true
		}
	}
	return 0, false
}
