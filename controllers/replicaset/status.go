package replicaset

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// updateStatus writes rs's status from its owned active pods when it
// changed. recheck, when positive, is when a ready pod becomes available.
func (c *Controller) updateStatus(ctx context.Context, rs *appsv1.ReplicaSet, owned []*corev1.Pod, manageErr error) (recheck time.Duration, err error) {
	status, recheck := computeStatus(rs, owned, manageErr, c.now())
	if equality.Semantic.DeepEqual(rs.Status, status) {
		return recheck, nil
	}
	cp := rs.DeepCopy()
	cp.Status = status
	_, err = c.client.UpdateStatus(ctx, cp)
	if apierrors.IsConflict(err) {
		err = c.retryStatus(ctx, rs, status)
	}
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	return recheck, err
}

// retryStatus writes status over the latest stored ReplicaSet, if it is
// still the same one with the same spec.
func (c *Controller) retryStatus(ctx context.Context, rs *appsv1.ReplicaSet, status appsv1.ReplicaSetStatus) error {
	obj, err := c.client.Get(ctx, replicaSets, rs.Namespace, rs.Name)
	if err != nil {
		return fmt.Errorf("re-read replicaset: %w", err)
	}
	fresh := obj.(*appsv1.ReplicaSet)
	if fresh.UID != rs.UID || fresh.Generation != rs.Generation {
		return nil // a newer sync, queued by the change, writes its own
	}
	fresh.Status = status
	_, err = c.client.UpdateStatus(ctx, fresh)
	return err
}

// computeStatus is rs's status given the pods it controls: counts,
// observedGeneration and the ReplicaFailure condition, which a failed
// create or delete sets and a clean sync clears.
func computeStatus(rs *appsv1.ReplicaSet, owned []*corev1.Pod, manageErr error, now time.Time) (appsv1.ReplicaSetStatus, time.Duration) {
	st := *rs.Status.DeepCopy()
	st.ObservedGeneration = rs.Generation
	st.Replicas = int32(len(owned))
	st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas = 0, 0, 0
	minReady := time.Duration(rs.Spec.MinReadySeconds) * time.Second
	var recheck time.Duration
	want := labelPairs(rs.Spec.Template.Labels)
	for _, p := range owned {
		if hasLabels(p.Labels, want) {
			st.FullyLabeledReplicas++
		}
		wait, ready := availableIn(p, minReady, now)
		switch {
		case !ready:
		case wait <= 0:
			st.ReadyReplicas++
			st.AvailableReplicas++
		default:
			st.ReadyReplicas++
			if recheck == 0 || wait < recheck {
				recheck = wait
			}
		}
	}
	setFailure(&st, manageErr, len(owned)-desiredOf(rs), now)
	return st, recheck
}

// labelPair is one label of a template, as hasLabels looks for it.
type labelPair struct{ key, value string }

// labelPairs lists a template's labels once per sync: ranging over the
// map for each of a thousand pods cost more than the lookups themselves.
func labelPairs(want map[string]string) []labelPair {
	out := make([]labelPair, 0, len(want))
	for k, v := range want {
		out = append(out, labelPair{k, v})
	}
	return out
}

// hasLabels reports whether have holds every label of want, as the
// selector made from want would match have (without making one per pod).
func hasLabels(have map[string]string, want []labelPair) bool {
	for _, l := range want {
		if got, ok := have[l.key]; !ok || got != l.value {
			return false
		}
	}
	return true
}

func desiredOf(rs *appsv1.ReplicaSet) int {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return int(*rs.Spec.Replicas)
}

// setFailure sets ReplicaFailure after a failed manage (reason by which
// way it failed) and removes it after one that did not fail.
func setFailure(st *appsv1.ReplicaSetStatus, manageErr error, diff int, now time.Time) {
	i := -1
	for j := range st.Conditions {
		if st.Conditions[j].Type == appsv1.ReplicaSetReplicaFailure {
			i = j
		}
	}
	switch {
	case manageErr == nil && i >= 0:
		st.Conditions = append(st.Conditions[:i:i], st.Conditions[i+1:]...)
	case manageErr != nil && i < 0:
		reason := "FailedCreate"
		if diff > 0 {
			reason = "FailedDelete"
		}
		st.Conditions = append(st.Conditions, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(now), Reason: reason, Message: manageErr.Error()})
	}
}
