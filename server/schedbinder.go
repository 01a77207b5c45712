package server

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/scheduler"
	"github.com/bramble-edge/bramble/server/registry"
)

// SchedulerName is the component scheduling events are reported from; it
// is kube-scheduler's, which `kubectl describe` users know.
const SchedulerName = "default-scheduler"

// schedulerBinder writes the scheduler's decisions through the registry,
// in process: bindings like POST pods/binding, the
// PodScheduled condition like PUT pods/status, and Events.
type schedulerBinder struct {
	reg *registry.Registry
}

var _ scheduler.Binder = (*schedulerBinder)(nil)

var (
	podsResource   = api.MustLookup("", "v1", "pods")
	eventsResource = api.MustLookup("", "v1", "events")
)

// Bind assigns pod to node; a pod whose UID changed (deleted and made
// again) gives a conflict.
func (b *schedulerBinder) Bind(ctx context.Context, pod *corev1.Pod, node string) error {
	binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
		Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	return b.reg.Bind(ctx, pod.Namespace, binding, false)
}

// Unschedulable sets PodScheduled=False with reason Unschedulable on the
// current pod, unless it has been bound or replaced meanwhile.
func (b *schedulerBinder) Unschedulable(ctx context.Context, pod *corev1.Pod, message string) error {
	now := metav1.NewTime(b.reg.Now().UTC())
	_, err := b.reg.Mutate(ctx, registry.Mutation{
		Resource: podsResource, Namespace: pod.Namespace, Name: pod.Name, Subresource: "status",
		Mutate: func(obj api.Object) (api.Object, error) {
			cur := obj.(*corev1.Pod)
			if cur.UID != pod.UID || cur.Spec.NodeName != "" {
				return nil, apierrors.NewConflict(podsResource.GroupResource(), cur.Name,
					fmt.Errorf("pod %s/%s was bound or replaced meanwhile", cur.Namespace, cur.Name))
			}
			api.SetPodCondition(&cur.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonUnschedulable, Message: message, LastTransitionTime: now})
			return cur, nil
		},
	})
	return err
}

// Event records a core/v1 Event about pod, as kube-scheduler's shows in
// `kubectl describe pod` and `kubectl get events`.
func (b *schedulerBinder) Event(ctx context.Context, pod *corev1.Pod, eventType, reason, message string) error {
	ev, err := api.NewEvent(pod, SchedulerName, eventType, reason, message, b.reg.Now().UTC())
	if err == nil {
		_, err = b.reg.CreateNew(ctx, eventsResource, ev.Namespace, ev, nil, registry.WriteOptions{})
	}
	if err != nil {
		return fmt.Errorf("event %s for pod %s/%s: %w", reason, pod.Namespace, pod.Name, err)
	}
	return nil
}
