package registry

import (
	"context"
	"errors"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
)

// bindCached tries a binding on the shared cache's copy of the pod, with no
// read of the store: the copy is bound as bindPod binds, encoded, and
// written only if the stored pod is still at the copy's revision (the
// cache decoded that very value, as cachedCopy relies on). It reports
// whether it settled the binding; false (nothing written) when there is
// no cache, the cache lacks the pod, bindPod refuses the copy, or the
// store moved on: then Bind takes the read-modify-write path, which
// answers from the stored pod (so a pod bound twice still gets 409 from
// the same code). The scheduler binds pods its own cache just showed, so
// the copy is nearly always current: one datastore read and one pod copy
// fewer per binding.
func (r *Registry) bindCached(ctx context.Context, ns string, b *corev1.Binding) (bool, error) {
	pod, rev := r.cachedPod(ns, b.Name)
	if pod == nil {
		return false, nil
	}
	next, err := r.bindPod(pod, b)
	if err != nil {
		return false, nil
	}
	data, err := encodeStored(next)
	if err != nil {
		return false, nil
	}
	key := podsResource.Key(ns, b.Name)
	offered := r.offer(podsResource, key, data, next)
	newRev, err := r.store.Update(ctx, key, data, rev)
	offered.Written(newRev, err)
	switch {
	case errors.Is(err, datastore.ErrConflict) || errors.Is(err, datastore.ErrNotFound):
		return false, nil
	case err != nil:
		return true, StoreError(err, podsResource, b.Name)
	}
	r.sums.note(key, rev, newRev, data)
	return true, nil
}

// cachedPod is a copy of the cache's pod ns/name that bindPod may change,
// and the revision it was decoded from; nil when the cache does not hold
// it.
func (r *Registry) cachedPod(ns, name string) (*corev1.Pod, int64) {
	obj, rev := r.cachedShared(podsResource, ns, name)
	pod, isPod := obj.(*corev1.Pod)
	if !isPod {
		return nil, 0
	}
	return bindCopy(pod), rev
}

// bindCopy copies a pod for bindPod: the Pod by value (so the node name,
// resourceVersion and type fields bindPod and encodeStored set are its
// own), and the two things bindPod changes in place, the annotations and
// the status conditions; the rest is shared with the cache and only read
// by encodeStored. A DeepCopy of the whole pod was a third of a cached
// binding's CPU.
func bindCopy(pod *corev1.Pod) *corev1.Pod {
	c := *pod
	c.Annotations = maps.Clone(pod.Annotations)
	c.Status.Conditions = slices.Clone(pod.Status.Conditions)
	return &c
}
