package registry

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
)

// Kinds is the set of served kinds: one row (*api.Resource) per REST
// collection, the built-in ones first, then those added while the server
// runs (a CustomResourceDefinition's). Readers see a consistent snapshot
// without locking; Add and Remove replace it and tell the subscribers
// (discovery and OpenAPI rebuild their documents).
type Kinds struct {
	mu   sync.Mutex // serializes writers
	set  atomic.Pointer[kindSet]
	subs []func()
}

type kindSet struct {
	all    []*api.Resource
	byPath map[schema.GroupVersionResource]*api.Resource
	byKind map[schema.GroupKind]*api.Resource
	gvs    []schema.GroupVersion
	gen    uint64
}

// BuiltinKinds is a set of the built-in kinds alone, for callers without a
// registry (tests of routing and documents).
func BuiltinKinds() *Kinds { return newKinds() }

func newKinds() *Kinds {
	k := &Kinds{}
	k.set.Store(buildKindSet(api.All(), 0))
	return k
}

func buildKindSet(all []*api.Resource, gen uint64) *kindSet {
	s := &kindSet{all: all, gen: gen,
		byPath: make(map[schema.GroupVersionResource]*api.Resource, len(all)),
		byKind: make(map[schema.GroupKind]*api.Resource, len(all))}
	seen := map[schema.GroupVersion]bool{}
	for _, r := range all {
		s.byPath[r.GroupVersion().WithResource(r.Name)] = r
		if _, ok := s.byKind[r.GroupKind()]; !ok {
			s.byKind[r.GroupKind()] = r
		}
		if gv := r.GroupVersion(); !seen[gv] {
			seen[gv] = true
			s.gvs = append(s.gvs, gv)
		}
	}
	sort.Slice(s.gvs, func(i, j int) bool {
		if (s.gvs[i].Group == "") != (s.gvs[j].Group == "") {
			return s.gvs[i].Group == ""
		}
		if s.gvs[i].Group != s.gvs[j].Group {
			return strings.Compare(s.gvs[i].Group, s.gvs[j].Group) < 0
		}
		return s.gvs[i].Version < s.gvs[j].Version
	})
	return s
}

// All returns every served kind; the slice must not be modified.
func (k *Kinds) All() []*api.Resource { return k.set.Load().all }

// Lookup finds a kind by group, version and plural name.
func (k *Kinds) Lookup(group, version, name string) (*api.Resource, bool) {
	r, ok := k.set.Load().byPath[schema.GroupVersionResource{Group: group, Version: version, Resource: name}]
	return r, ok
}

// ByKind finds a kind by group and kind name.
func (k *Kinds) ByKind(group, kind string) (*api.Resource, bool) {
	r, ok := k.set.Load().byKind[schema.GroupKind{Group: group, Kind: kind}]
	return r, ok
}

// GroupVersions lists the served group versions, core ("v1") first, then
// the named groups in name order.
func (k *Kinds) GroupVersions() []schema.GroupVersion { return k.set.Load().gvs }

// Generation counts the changes to the set; documents built from it are
// current while it stays the same.
func (k *Kinds) Generation() uint64 { return k.set.Load().gen }

// OnChange registers f to run after every change to the set.
func (k *Kinds) OnChange(f func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.subs = append(k.subs, f)
}

// Add serves a new kind. A kind whose collection or group and kind is
// served already is refused.
func (k *Kinds) Add(res *api.Resource) error {
	k.mu.Lock()
	cur := k.set.Load()
	if _, ok := cur.byPath[res.GroupVersion().WithResource(res.Name)]; ok {
		k.mu.Unlock()
		return fmt.Errorf("add kind: %s is served already", res.GroupVersion().WithResource(res.Name))
	}
	if old, ok := cur.byKind[res.GroupKind()]; ok && old.Version == res.Version {
		k.mu.Unlock()
		return fmt.Errorf("add kind: %s %s is served already as %s", res.APIVersion(), res.Kind, old.Name)
	}
	all := append(append([]*api.Resource(nil), cur.all...), res)
	k.set.Store(buildKindSet(all, cur.gen+1))
	k.notifyLocked()
	return nil
}

// Remove stops serving a kind added with Add; built-in kinds stay.
func (k *Kinds) Remove(group, version, name string) bool {
	k.mu.Lock()
	cur := k.set.Load()
	all := make([]*api.Resource, 0, len(cur.all))
	found := false
	for _, r := range cur.all {
		if r.Group == group && r.Version == version && r.Name == name && r.Unstructured() {
			found = true
			continue
		}
		all = append(all, r)
	}
	if !found {
		k.mu.Unlock()
		return false
	}
	k.set.Store(buildKindSet(all, cur.gen+1))
	k.notifyLocked()
	return true
}

// notifyLocked runs the subscribers, then releases the writers' lock.
func (k *Kinds) notifyLocked() {
	subs := append([]func(){}, k.subs...)
	k.mu.Unlock()
	for _, f := range subs {
		f()
	}
}
