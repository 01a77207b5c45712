package registry

import (
	"context"
	"errors"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// bindCached tries a binding on the shared cache's copy of the pod, with no
// read of the store: the copy is bound as bindPod binds, encoded, and
// written only if the stored pod is still at the copy's revision (the
// cache decoded that very value, as cachedShared relies on), and the copy
// is then the cache's (giveBound). It reports
// whether it settled the binding; false (nothing written) when there is
// no cache, the cache lacks the pod, bindPod refuses the copy, or the
// store moved on: then Bind takes the read-modify-write path, which
// answers from the stored pod (so a pod bound twice still gets 409 from
// the same code). The scheduler binds pods its own cache just showed, so
// the copy is nearly always current: one datastore read and one pod copy
// fewer per binding.
func (r *Registry) bindCached(ctx context.Context, ns string, b *corev1.Binding) (bool, error) {
	obj, rev := r.cachedShared(podsResource, ns, b.Name)
	cached, isPod := obj.(*corev1.Pod)
	if !isPod {
		return false, nil
	}
	defer guardShared(cached)()
	pod := bindCopy(cached)
	if _, err := r.bindPod(pod, b); err != nil {
		return false, nil
	}
	data, err := encodeStored(pod)
	if err != nil {
		return false, nil
	}
	key := podsResource.Key(ns, b.Name)
	offered := r.giveBound(key, data, pod)
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

// giveBound hands the shared cache pod, bound by bindPod from bindCopy
// and encoded as data, without a copy (informer.Cache.Give): bindCached
// drops it once written. What bindCopy made the pod's own is brought to
// its stored form; the rest is the cache's pod, which is in stored form
// already and which nothing changes. When that fails, the pod is offered
// as a copy instead. Race builds check that the pod given equals the copy
// (guardGiven).
func (r *Registry) giveBound(key string, data []byte, pod *corev1.Pod) *informer.Offered {
	if r.cache == nil {
		return nil
	}
	if !api.FixStored(&pod.Spec.NodeName) || !api.FixStored(&pod.Annotations) || !api.FixStored(&pod.Status.Conditions) {
		return r.offer(podsResource, key, data, pod)
	}
	guardGiven(podsResource, pod)
	return r.cache.Give(podsResource, key, data, pod)
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
