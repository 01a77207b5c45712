package controllers

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
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
)

// IndexFunc gives the values under which an object is indexed.
type IndexFunc func(obj api.Object) []string

// Handler is told of changes in the order the datastore committed them,
// on the informer's one goroutine, after the cache holds the change. It
// must not block: enqueue keys and return. Nil funcs are skipped. The
// objects are the cache's own: read them, never change them.
type Handler struct {
	OnAdd    func(obj api.Object)
	OnUpdate func(old, cur api.Object)
	OnDelete func(last api.Object)
}

// Informer is the cached, indexed state of one resource.
type Informer struct {
	res      *api.Resource
	synced   chan struct{}
	mu       sync.RWMutex
	objs     map[string]api.Object // by key (KeyOf)
	indexers map[string]IndexFunc
	indexes  map[string]map[string]map[string]struct{} // index -> value -> keys
	handlers []Handler
}

func newInformer(res *api.Resource) *Informer {
	inf := &Informer{res: res, synced: make(chan struct{}), objs: map[string]api.Object{},
		indexers: map[string]IndexFunc{}, indexes: map[string]map[string]map[string]struct{}{}}
	inf.AddIndex(IndexNamespace, func(o api.Object) []string { return []string{o.GetNamespace()} })
	inf.AddIndex(IndexOwner, ownerUIDs)
	if res.Group == "" && res.Name == "pods" {
		inf.AddIndex(IndexNode, func(o api.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} })
	}
	return inf
}

func ownerUIDs(o api.Object) []string {
	refs := o.GetOwnerReferences()
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = string(r.UID)
	}
	return out
}

// Resource is the resource this informer caches.
func (i *Informer) Resource() *api.Resource { return i.res }

// AddIndex adds a named index; call it before the cache starts.
func (i *Informer) AddIndex(name string, fn IndexFunc) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.indexers[name] = fn
	i.indexes[name] = map[string]map[string]struct{}{}
}

// AddHandler registers h; call it before the cache starts.
func (i *Informer) AddHandler(h Handler) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.handlers = append(i.handlers, h)
}

// HasSynced reports whether the first list has been loaded.
func (i *Informer) HasSynced() bool {
	select {
	case <-i.synced:
		return true
	default:
		return false
	}
}

// Get returns the cached object, which must not be changed.
func (i *Informer) Get(namespace, name string) (api.Object, bool) {
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	i.mu.RLock()
	defer i.mu.RUnlock()
	obj, ok := i.objs[key]
	return obj, ok
}

// List returns the cached objects in namespace ("" for all) whose labels
// match sel (nil matches everything). They must not be changed.
func (i *Informer) List(namespace string, sel labels.Selector) []api.Object {
	i.mu.RLock()
	defer i.mu.RUnlock()
	var out []api.Object
	match := func(o api.Object) {
		if sel == nil || sel.Matches(labels.Set(o.GetLabels())) {
			out = append(out, o)
		}
	}
	if namespace == "" {
		for _, o := range i.objs {
			match(o)
		}
		return out
	}
	for key := range i.indexes[IndexNamespace][namespace] {
		match(i.objs[key])
	}
	return out
}

// ByIndex returns the cached objects indexed under value in index.
func (i *Informer) ByIndex(index, value string) []api.Object {
	i.mu.RLock()
	defer i.mu.RUnlock()
	keys := i.indexes[index][value]
	out := make([]api.Object, 0, len(keys))
	for key := range keys {
		out = append(out, i.objs[key])
	}
	return out
}

// Len is the number of cached objects.
func (i *Informer) Len() int {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return len(i.objs)
}
