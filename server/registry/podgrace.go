package registry

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// defaultPodGrace is the grace of a pod that sets no
// terminationGracePeriodSeconds (api defaulting sets 30 as well).
const defaultPodGrace = 30

// graceMark is the deletionTimestamp and deletionGracePeriodSeconds a
// graceful delete gives a pod that must first stop on its node.
type graceMark struct {
	at    metav1.Time
	grace int64
}

// podGraceMark says how a delete marks a pod, as upstream's pod strategy
// and graceful deletion do: nil means "delete like any object" (removed at
// once, or kept with grace 0 by finalizers). A pod bound to a node and not
// finished gets now + grace, grace taken from opts, else from its spec. A
// second delete may only shorten the grace; shortened to 0 the mark has
// grace 0 and the caller removes the pod unless finalizers keep it.
func podGraceMark(res *api.Resource, cur api.Object, opts *DeleteOptions, now time.Time) *graceMark {
	pod, ok := cur.(*corev1.Pod)
	if res != podsResource || !ok {
		return nil
	}
	asked := opts.GracePeriodSeconds
	if pod.DeletionTimestamp != nil {
		return shortenedMark(pod, asked)
	}
	grace := int64(defaultPodGrace)
	switch {
	case asked != nil:
		grace = *asked
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || podFinished(pod) || grace == 0 {
		return nil
	}
	grace = max(grace, 1) // upstream turns a negative grace into 1 s
	return &graceMark{at: metav1.NewTime(now.Add(time.Duration(grace) * time.Second).Truncate(time.Second)), grace: grace}
}

// shortenedMark is a second delete of a pod already being deleted: a pod
// kept with grace 0 (finalizers) is deleted like any object; a shorter grace
// moves its deletionTimestamp back by the difference; anything else keeps
// the mark it has.
func shortenedMark(pod *corev1.Pod, asked *int64) *graceMark {
	had := pod.DeletionGracePeriodSeconds
	if had == nil || *had <= 0 {
		return nil
	}
	m := &graceMark{at: *pod.DeletionTimestamp, grace: *had}
	if asked == nil || *asked >= *had {
		return m
	}
	next := max(*asked, 0)
	m.at = metav1.NewTime(m.at.Add(time.Duration(next-*had) * time.Second))
	m.grace = next
	return m
}

func podFinished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// markGraceful writes m (and the finalizers fins) into a pod. A mark of
// grace 0 without finalizers removes the pod; an unchanged mark writes
// nothing.
func (r *Registry) markGraceful(ctx context.Context, cur api.Object, kv *datastore.KeyValue, fins []string, m *graceMark, dryRun bool) (api.Object, error) {
	had := cur.GetDeletionGracePeriodSeconds()
	unchanged := cur.GetDeletionTimestamp() != nil && cur.GetDeletionTimestamp().Equal(&m.at) &&
		had != nil && *had == m.grace && sameFinalizers(fins, cur.GetFinalizers())
	cur.SetDeletionTimestamp(&m.at)
	cur.SetDeletionGracePeriodSeconds(&m.grace)
	cur.SetFinalizers(fins)
	switch {
	case m.grace == 0 && len(fins) == 0:
		return r.storeDelete(ctx, cur, kv, dryRun)
	case unchanged:
		return cur, nil
	}
	return r.storeMarked(ctx, cur, kv, dryRun)
}

// stillStored says whether a delete left obj in the store: finalizers keep
// it, or a pod waits for its node to stop it.
func stillStored(obj api.Object) bool {
	return len(obj.GetFinalizers()) > 0 || obj.GetDeletionTimestamp() != nil && waitsForGrace(obj)
}

// waitsForGrace says whether an object being deleted without finalizers
// stays until a later delete removes it: a pod its node is stopping.
func waitsForGrace(obj api.Object) bool {
	g := obj.GetDeletionGracePeriodSeconds()
	return g != nil && *g > 0
}
