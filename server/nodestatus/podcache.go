package nodestatus

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// PodReader is a read of pods that may be behind the datastore: the
// process's shared informer cache (*informer.Informer of pods).
type PodReader interface {
	Get(namespace, name string) (api.Object, bool)
}

// A pod status write needs the stored pod (to check the report is about
// it, to merge, and as the base of the write). Reading it from the shared
// cache instead of the datastore saves a read and a decode per write, but
// the cache may be behind, so it is trusted only for the one outcome a
// stale read cannot get wrong: "write". cachedWrite answers only when the
// cached pod is the reported one (same UID), bound to the reporting node,
// and its status differs from what the merged report would make it. Then:
//   - the write carries the cached resourceVersion, so if the cache was
//     behind, the registry refuses it (409 Conflict) and syncPod tries
//     again reading the datastore: a stale base never overwrites anything;
//   - a write that was not needed after all (the stored status already
//     is the merged one) costs one write, never a lost one.
// Every outcome that skips the write (the pod gone, another pod of that
// name, bound elsewhere or not yet, a finished pod, a status already as
// reported) could be a stale read's mistake, so each is decided from the
// datastore by the caller instead (reportedPod), as before.

// cachedWrite is the cached pod and its merged status when the cache's
// copy shows a write is due; nil when the datastore must decide. The pod
// is the cache's: read only.
func (m *Monitor) cachedWrite(key podKey, want *podState) (*corev1.Pod, *corev1.PodStatus) {
	if m.cfg.Pods == nil {
		return nil, nil
	}
	obj, ok := m.cfg.Pods.Get(key.namespace, key.name)
	if !ok {
		return nil, nil
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok || string(pod.UID) != want.uid || pod.Spec.NodeName != want.node || pod.ResourceVersion == "" {
		return nil, nil
	}
	next := mergePodStatus(&pod.Status, want.status)
	if next == nil || podStatusEqual(next, &pod.Status) {
		return nil, nil
	}
	return pod, next
}
