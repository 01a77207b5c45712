package registry

import (
	corev1 "k8s.io/api/core/v1"
)

// cachedNamespace answers a create's namespace check from the shared cache
// when that is as fresh as a datastore read for namespaces: the cache has
// applied the last namespace write (nsWrites notes it) and everything
// written before this registry started, so a namespace deleted (or marked
// terminating) before the create arrived is seen so, however far behind
// the cache is on other kinds. ok is false when the cache cannot say
// (none, not synced, behind on namespaces, or no such namespace, whose
// NotFound the datastore words): read the datastore. A create under 200
// watchers spent 3.5 % of the process's CPU on this read (a SQLite Get
// and a copy) for a namespace that rarely changes; waiting for the cache
// to be current on every kind sent most creates under load to it anyway.
func (r *Registry) cachedNamespace(name string) (ns *corev1.Namespace, ok bool) {
	if r.cache == nil {
		return nil, false
	}
	inf, served := r.cache.Serves(namespacesResource)
	if !served {
		return nil, false
	}
	want := r.nsRev.Load()
	r.cache.Read(func(rev int64) {
		if rev < want {
			return
		}
		if obj, found := inf.Get("", name); found {
			ns, ok = obj.(*corev1.Namespace)
		}
	})
	return ns, ok
}
