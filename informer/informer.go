package informer

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
)

// Standard indexes every informer (IndexNode: the pods informer) keeps.
const (
	// IndexNamespace: the object's namespace.
	IndexNamespace = "namespace"
	// IndexOwner: the UID of each of the object's ownerReferences.
	IndexOwner = "owner"
	// IndexNode: a pod's spec.nodeName ("" for unbound pods).
	IndexNode = "node"
	// IndexOrphan: the namespace of an object no controller owns, the ones a
	// controller may adopt.
	IndexOrphan = "orphan"
)

// IndexFunc gives the values under which an object is indexed.
type IndexFunc func(obj api.Object) []string

// Handler is told of changes in the order the datastore committed them,
// after the informer holds the change. It must not block: enqueue keys and
// return. Nil funcs are skipped. The objects are the cache's own: read
// them, never change them.
type Handler struct {
	OnAdd    func(obj api.Object)
	OnUpdate func(old, cur api.Object)
	OnDelete func(last api.Object)
}

// Informer is a handle on the cached, indexed state of one resource. A
// handle from a View registers its handlers through the View.
type Informer struct {
	st   *state
	view *View
}

// Resource is the resource this informer caches.
func (i *Informer) Resource() *api.Resource { return i.st.res }

// AddIndex adds a named index over the objects held now and later.
func (i *Informer) AddIndex(name string, fn IndexFunc) { i.st.addIndex(name, fn) }

// AddHandler registers h. Without a View it takes effect at once, the
// objects already held replayed to OnAdd; through a View it takes effect
// when the View starts and ends when it stops.
func (i *Informer) AddHandler(h Handler) {
	if i.view != nil {
		i.view.add(i.st, h)
		return
	}
	i.st.addHandler(h)
}

// HasSynced reports whether the first list has been loaded.
func (i *Informer) HasSynced() bool {
	select {
	case <-i.st.synced:
		return true
	default:
		return false
	}
}

// Get returns the cached object, which must not be changed.
func (i *Informer) Get(namespace, name string) (api.Object, bool) {
	if namespace == "" {
		return i.st.get(name)
	}
	var buf [128]byte // the key is built here, not allocated: Get is called per write
	key := append(append(append(buf[:0], namespace...), '/'), name...)
	return i.st.getKey(key)
}

// List returns the cached objects in namespace ("" for all) whose labels
// match sel (nil matches everything). They must not be changed.
func (i *Informer) List(namespace string, sel labels.Selector) []api.Object {
	s := i.st
	var out []api.Object
	match := func(o api.Object) {
		if sel == nil || sel.Matches(labels.Set(o.GetLabels())) {
			out = append(out, o)
		}
	}
	s.read(func() {
		if namespace == "" {
			for _, e := range s.objs {
				match(e.obj)
			}
			return
		}
		for _, e := range s.indexes[IndexNamespace][namespace] {
			match(e.obj)
		}
	})
	return out
}

// ByIndex returns the cached objects indexed under value in index.
func (i *Informer) ByIndex(index, value string) []api.Object {
	s := i.st
	var out []api.Object
	s.read(func() {
		set := s.indexes[index][value]
		out = make([]api.Object, 0, len(set))
		for _, e := range set {
			out = append(out, e.obj)
		}
	})
	return out
}

// Len is the number of cached objects.
func (i *Informer) Len() int {
	i.st.mu.RLock()
	defer i.st.mu.RUnlock()
	return len(i.st.objs) + len(i.st.pending)
}

// state is one resource's objects, indexes and handlers, shared by every
// handle on it.
type state struct {
	res    *api.Resource
	prefix string // res.Prefix(""), which its keys are below
	// apply is held (written) while a change is applied and its handlers
	// run, and while a handler is added or removed, so a handler sees every
	// object exactly once and in order. The cache's for the resources it
	// follows; an informer made after the cache started has its own.
	apply    *sync.RWMutex
	shared   bool // fed by the cache's own follower (consistent reads)
	synced   chan struct{}
	syncOnce sync.Once

	mu       sync.RWMutex
	objs     map[string]*entry                       // by key (KeyOf)
	pending  map[string]*cell                        // stored values not decoded yet, by key (lazy.go)
	indexers []indexer                               // in the order added
	indexes  map[string]map[string]map[string]*entry // index -> value -> key -> its entry
	handlers []*Handler

	handle *Informer // a handle without a View, shared by the callers of Cache.Serves
}

func newState(res *api.Resource, apply *sync.RWMutex, shared bool) *state {
	s := &state{res: res, prefix: res.Prefix(""), apply: apply, shared: shared, synced: make(chan struct{}), objs: map[string]*entry{},
		pending: map[string]*cell{}, indexes: map[string]map[string]map[string]*entry{}}
	s.handle = &Informer{st: s}
	s.addIndexer(indexer{name: IndexNamespace, fn: namespaceOf, same: sameNamespace})
	s.addIndexer(indexer{name: IndexOwner, fn: ownerUIDs, same: sameOwners})
	s.addIndexer(indexer{name: IndexOrphan, fn: orphanNamespace, same: sameOrphan})
	if res.Group == "" && res.Name == "pods" {
		s.addIndexer(indexer{name: IndexNode, fn: nodeOf, same: sameNode})
	}
	return s
}

// The standard index functions, each with its check that an object is
// held under given values, which allocates nothing.

func namespaceOf(o api.Object) []string { return []string{o.GetNamespace()} }

func sameNamespace(o api.Object, vals []string) bool {
	return len(vals) == 1 && vals[0] == o.GetNamespace()
}

func nodeOf(o api.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }

func sameNode(o api.Object, vals []string) bool {
	return len(vals) == 1 && vals[0] == o.(*corev1.Pod).Spec.NodeName
}

func orphanNamespace(o api.Object) []string {
	if metav1.GetControllerOfNoCopy(o) != nil {
		return nil
	}
	return []string{o.GetNamespace()}
}

func sameOrphan(o api.Object, vals []string) bool {
	if metav1.GetControllerOfNoCopy(o) != nil {
		return len(vals) == 0
	}
	return sameNamespace(o, vals)
}

func ownerUIDs(o api.Object) []string {
	refs := o.GetOwnerReferences()
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = string(r.UID)
	}
	return out
}

func sameOwners(o api.Object, vals []string) bool {
	refs := o.GetOwnerReferences()
	if len(refs) != len(vals) {
		return false
	}
	for i := range refs {
		if string(refs[i].UID) != vals[i] {
			return false
		}
	}
	return true
}

// entry is one decoded object held, with the fingerprints of the stored
// value it was decoded from (api.DecodeStoredReusing; nil: none kept) and
// the values each index holds it under. It stays while its key is held:
// the indexes hold it too, so a read by index needs no lookup by key, and
// an update changes it in place.
type entry struct {
	obj  api.Object
	secs *api.Sections
	vals []indexed
}

func (s *state) markSynced() { s.syncOnce.Do(func() { close(s.synced) }) }
