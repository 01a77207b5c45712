package statefulset

import (
	"context"
	"errors"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// partition is the RollingUpdate partition: pods with a lower ordinal
// (counted from the start ordinal) keep the current revision.
func partition(set *appsv1.StatefulSet) int {
	ru := set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.Partition == nil {
		return 0
	}
	return int(*ru.Partition)
}

// maxUnavailable resolves the strategy's maxUnavailable against the
// replica count (a percentage rounds up); at least 1.
func maxUnavailable(set *appsv1.StatefulSet) int {
	ru := set.Spec.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return 1
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, replicaCount(set), true)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// rollingUpdate deletes pods not at the update revision, highest ordinal
// first, down to the partition, while no more than maxUnavailable of the
// pods at or above the partition are unavailable; the create step brings
// them back at the update revision.
func (c *Controller) rollingUpdate(ctx context.Context, key string, set *appsv1.StatefulSet, st *state, now time.Time) error {
	lowest := min(max(partition(set), 0), len(st.replicas))
	unavailable := 0
	for _, pod := range st.replicas[lowest:] {
		if !c.available(key, set, pod, now) {
			unavailable++
		}
	}
	budget := maxUnavailable(set) - unavailable
	var errs []error
	for i := len(st.replicas) - 1; i >= lowest && budget > 0; i-- {
		pod := st.replicas[i]
		if pod == nil || pod.DeletionTimestamp != nil || pod.Labels[LabelRevision] == st.revs.update.Name {
			continue
		}
		errs = append(errs, c.deletePod(ctx, key, set, pod))
		if c.available(key, set, pod, now) {
			budget--
		}
	}
	return errors.Join(errs...)
}
