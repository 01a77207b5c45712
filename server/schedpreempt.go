package server

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/scheduler"
	"github.com/bramble-edge/bramble/server/registry"
)

var pdbsResource = api.MustLookup("policy", "v1", "poddisruptionbudgets")

// schedulerPreemptor carries out the scheduler's preemptions through the
// registry: the preemptor's status.nominatedNodeName, then each victim
// marked with the DisruptionTarget condition and deleted (gracefully), as
// kube-scheduler does. Budgets are read from the shared cache.
type schedulerPreemptor struct {
	reg  *registry.Registry
	pdbs *informer.Informer
}

var _ scheduler.Preemptor = (*schedulerPreemptor)(nil)

// Protected reports whether a budget selecting pod allows no disruption.
func (p *schedulerPreemptor) Protected(pod *corev1.Pod) bool {
	for _, o := range p.pdbs.List(pod.Namespace, nil) {
		pdb := o.(*policyv1.PodDisruptionBudget)
		if pdb.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err == nil && sel.Matches(labels.Set(pod.Labels)) && pdb.Status.DisruptionsAllowed <= 0 {
			return true
		}
	}
	return false
}

// Nominate records the node the preemption makes room on.
func (p *schedulerPreemptor) Nominate(ctx context.Context, pod *corev1.Pod, node string) error {
	return p.mutateStatus(ctx, pod, func(cur *corev1.Pod) { cur.Status.NominatedNodeName = node })
}

// Preempt marks victim as disrupted by preemption and deletes it.
func (p *schedulerPreemptor) Preempt(ctx context.Context, victim, preemptor *corev1.Pod) error {
	now := metav1.NewTime(p.reg.Now().UTC())
	err := p.mutateStatus(ctx, victim, func(cur *corev1.Pod) {
		api.SetPodCondition(&cur.Status, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: corev1.PodReasonPreemptionByScheduler, LastTransitionTime: now,
			Message: fmt.Sprintf("%s: preempting to accommodate a higher priority pod", SchedulerName)})
	})
	if err != nil {
		return err
	}
	uid := victim.UID
	_, err = p.reg.Delete(ctx, podsResource, victim.Namespace, victim.Name,
		&registry.DeleteOptions{DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}})
	return err
}

// mutateStatus changes the current pod's status, unless it was replaced.
func (p *schedulerPreemptor) mutateStatus(ctx context.Context, pod *corev1.Pod, change func(*corev1.Pod)) error {
	_, err := p.reg.Mutate(ctx, registry.Mutation{
		Resource: podsResource, Namespace: pod.Namespace, Name: pod.Name, Subresource: "status",
		Mutate: func(obj api.Object) (api.Object, error) {
			cur := obj.(*corev1.Pod)
			if cur.UID != pod.UID {
				return nil, apierrors.NewConflict(podsResource.GroupResource(), cur.Name,
					fmt.Errorf("pod %s/%s was replaced meanwhile", cur.Namespace, cur.Name))
			}
			change(cur)
			return cur, nil
		},
	})
	return err
}
