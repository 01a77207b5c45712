package registry

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// takeDisruption spends one of the budget's allowed disruptions on pod,
// read and written in one step (a concurrent eviction retries on the
// budget's new version). An unready pod under the AlwaysAllow policy, or
// under IfHealthyBudget while the budget is met, spends nothing.
func (r *Registry) takeDisruption(ctx context.Context, pdb *policyv1.PodDisruptionBudget, pod *corev1.Pod, dryRun bool) error {
	if !podIsReady(pod) && unhealthyMayGo(pdb) {
		return nil
	}
	_, err := r.Mutate(ctx, Mutation{
		Resource: pdbResource, Namespace: pdb.Namespace, Name: pdb.Name, Subresource: "status", DryRun: dryRun,
		Mutate: func(cur api.Object) (api.Object, error) {
			b := cur.(*policyv1.PodDisruptionBudget)
			if err := checkBudget(b); err != nil {
				return nil, err
			}
			b.Status.DisruptionsAllowed--
			if b.Status.DisruptedPods == nil {
				b.Status.DisruptedPods = map[string]metav1.Time{}
			}
			b.Status.DisruptedPods[pod.Name] = metav1.NewTime(r.now())
			return b, nil
		},
	})
	return err
}

// checkBudget refuses an eviction the budget's status does not allow.
func checkBudget(pdb *policyv1.PodDisruptionBudget) error {
	st := pdb.Status
	switch {
	case st.ObservedGeneration < pdb.Generation:
		return refused(fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdb.Name))
	case st.DisruptionsAllowed < 0:
		return apierrors.NewForbidden(pdbResource.GroupResource(), pdb.Name, fmt.Errorf("pdb disruptions allowed is negative"))
	case len(st.DisruptedPods) > maxDisruptedPods:
		return apierrors.NewForbidden(pdbResource.GroupResource(), pdb.Name,
			fmt.Errorf("DisruptedPods map too big - too many evictions not confirmed by PDB controller"))
	case st.DisruptionsAllowed == 0:
		return refused(fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently",
			pdb.Name, st.DesiredHealthy, st.CurrentHealthy))
	}
	return nil
}

// refused is upstream's 429 for an eviction a budget forbids, with the
// budget's reason as a cause.
func refused(cause string) error {
	err := apierrors.NewTooManyRequests(evictionRefused, 0)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes,
		metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: cause})
	return err
}

// unhealthyMayGo reports whether the budget lets an unready pod go
// without spending a disruption.
func unhealthyMayGo(pdb *policyv1.PodDisruptionBudget) bool {
	if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == policyv1.AlwaysAllow {
		return true
	}
	st := pdb.Status
	return st.ObservedGeneration >= pdb.Generation && st.DesiredHealthy > 0 && st.CurrentHealthy >= st.DesiredHealthy
}

func podIsReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
