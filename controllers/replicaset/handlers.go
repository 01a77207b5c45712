package replicaset

import (
	"maps"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// The handlers below only record what the cache observed (expectations)
// and queue the keys of the ReplicaSets concerned.

func (c *Controller) rsDeleted(obj api.Object) {
	key := controllers.KeyOf(obj)
	c.exp.Forget(key)
	c.queue.Add(key)
}

// podAdded: a pod controlled by a ReplicaSet is one of its creations seen;
// an orphan may be adopted by any ReplicaSet that matches it.
func (c *Controller) podAdded(obj api.Object) {
	pod := obj.(*corev1.Pod)
	if pod.DeletionTimestamp != nil {
		c.podDeleted(pod) // seen for the first time already going
		return
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if rs := c.resolveRef(pod.Namespace, ref); rs != nil {
			c.observed(rs, pod.Name, false)
		}
		return
	}
	c.enqueueMatching(pod)
}

// observed notes one of rs's creations or deletions seen and queues key:
// at once when it was the last outstanding (the sync may act again), else
// gathered like a status change (the sync could only count pods: a
// ReplicaSet creating 1,000 pods would otherwise walk what it owns once
// per pod created).
func (c *Controller) observed(rs *appsv1.ReplicaSet, pod string, deleted bool) {
	key := controllers.KeyOf(rs)
	if c.exp.Observed(key, pod, deleted) {
		c.queue.AddAfter(key, batchFor(rs))
		return
	}
	c.queue.Add(key)
}

// Syncs that pod status changes call for are gathered over a window that
// grows with the ReplicaSet: a sync walks every pod it owns, so syncing a
// 1,000-pod ReplicaSet every 100 ms while its pods start would cost 10,000
// pod visits a second (measured: 16 % of the server's CPU from a
// Deployment's apply to all Ready). podBatchPerPod per desired replica,
// between podChangeBatch and podBatchMax, keeps that near 1,000 a second
// and status at most podBatchMax behind.
const (
	podChangeBatch = 100 * time.Millisecond
	podBatchPerPod = time.Millisecond
	podBatchMax    = time.Second
)

func batchFor(rs *appsv1.ReplicaSet) time.Duration {
	return min(podBatchMax, max(podChangeBatch, time.Duration(desiredOf(rs))*podBatchPerPod))
}

// podUpdated queues the old and new controller when the controller
// reference changed, and the matching ReplicaSets of an orphan whose labels
// changed.
func (c *Controller) podUpdated(oldObj, curObj api.Object) {
	old, cur := oldObj.(*corev1.Pod), curObj.(*corev1.Pod)
	if old.ResourceVersion == cur.ResourceVersion {
		return
	}
	labelsChanged := !maps.Equal(old.Labels, cur.Labels)
	if cur.DeletionTimestamp != nil {
		c.podDeleted(cur)
		if labelsChanged {
			c.podDeleted(old)
		}
		return
	}
	curRef, oldRef := metav1.GetControllerOfNoCopy(cur), metav1.GetControllerOfNoCopy(old)
	refChanged := !sameRef(curRef, oldRef)
	if refChanged && oldRef != nil {
		if rs := c.resolveRef(old.Namespace, oldRef); rs != nil {
			c.enqueue(rs)
		}
	}
	if curRef != nil {
		if rs := c.resolveRef(cur.Namespace, curRef); rs != nil && !refChanged && !labelsChanged {
			// A change of the pod alone (its status, mostly) moves only the
			// ReplicaSet's counts: syncs of a large ReplicaSet, each costing
			// what it owns, are gathered over a short window.
			c.queue.AddAfter(controllers.KeyOf(rs), batchFor(rs))
		} else if rs != nil {
			c.enqueue(rs)
		}
		return
	}
	if labelsChanged || refChanged {
		c.enqueueMatching(cur)
	}
}

// podDeleted: a pod going or gone is a deletion its controller observed.
func (c *Controller) podDeleted(obj api.Object) {
	pod := obj.(*corev1.Pod)
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil {
		return
	}
	if rs := c.resolveRef(pod.Namespace, ref); rs != nil {
		c.observed(rs, pod.Name, true)
	}
}

// resolveRef is the cached ReplicaSet a controller reference points to, or
// nil when it names another kind or a ReplicaSet that is gone or replaced.
func (c *Controller) resolveRef(namespace string, ref *metav1.OwnerReference) *appsv1.ReplicaSet {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil || gv.Group != replicaSetKind.Group || ref.Kind != replicaSetKind.Kind {
		return nil
	}
	obj, ok := c.rsInf.Get(namespace, ref.Name)
	if !ok || obj.GetUID() != ref.UID {
		return nil
	}
	return obj.(*appsv1.ReplicaSet)
}

// enqueueMatching queues every ReplicaSet in the pod's namespace whose
// selector matches it.
func (c *Controller) enqueueMatching(pod *corev1.Pod) {
	set := labels.Set(pod.Labels)
	for _, obj := range c.rsInf.List(pod.Namespace, nil) {
		rs := obj.(*appsv1.ReplicaSet)
		sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(set) {
			continue
		}
		c.queue.Add(controllers.KeyOf(rs))
	}
}

func sameRef(a, b *metav1.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.UID == b.UID
}
