package server

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/scheduler"
)

// SchedulerName is the component scheduling events are reported from; it
// is kube-scheduler's, which `kubectl describe` users know.
const SchedulerName = "default-scheduler"

// schedulerBinder writes the scheduler's decisions through the API's
// admission path, in process: bindings like POST pods/binding, the
// PodScheduled condition like PUT pods/status, and Events.
type schedulerBinder struct {
	api *API
}

var _ scheduler.Binder = (*schedulerBinder)(nil)

// Bind assigns pod to node; a pod whose UID changed (deleted and made
// again) gives a conflict.
func (b *schedulerBinder) Bind(ctx context.Context, pod *corev1.Pod, node string) error {
	binding := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
		Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	_, err := b.api.updateObject(ctx, writeReq{
		res: podsResource, ns: pod.Namespace, name: pod.Name,
		mutate: func(cur api.Object) (api.Object, error) { return b.api.bindPod(cur.(*corev1.Pod), binding) },
	})
	return err
}

// Unschedulable sets PodScheduled=False with reason Unschedulable on the
// current pod, unless it has been bound or replaced meanwhile.
func (b *schedulerBinder) Unschedulable(ctx context.Context, pod *corev1.Pod, message string) error {
	now := metav1.NewTime(b.api.now().UTC())
	_, err := b.api.updateObject(ctx, writeReq{
		res: podsResource, ns: pod.Namespace, name: pod.Name, admit: admitUpdate(podsResource, "status"),
		mutate: func(obj api.Object) (api.Object, error) {
			cur := obj.(*corev1.Pod)
			if cur.UID != pod.UID || cur.Spec.NodeName != "" {
				return nil, apierrors.NewConflict(podsResource.GroupResource(), cur.Name,
					fmt.Errorf("pod %s/%s was bound or replaced meanwhile", cur.Namespace, cur.Name))
			}
			setCondition(&cur.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonUnschedulable, Message: message, LastTransitionTime: now})
			return cur, nil
		},
	})
	return err
}

// setCondition replaces the condition of c's type, keeping its transition
// time when the status did not change.
func setCondition(st *corev1.PodStatus, c corev1.PodCondition) {
	for i, old := range st.Conditions {
		if old.Type == c.Type {
			if old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
			st.Conditions[i] = c
			return
		}
	}
	st.Conditions = append(st.Conditions, c)
}

// Event records a core/v1 Event about pod, as kube-scheduler's shows in
// `kubectl describe pod` and `kubectl get events`.
func (b *schedulerBinder) Event(ctx context.Context, pod *corev1.Pod, eventType, reason, message string) error {
	ev, err := api.NewEvent(pod, SchedulerName, eventType, reason, message, b.api.now().UTC())
	if err == nil {
		_, err = b.api.Create(ctx, ev)
	}
	if err != nil {
		return fmt.Errorf("event %s for pod %s/%s: %w", reason, pod.Namespace, pod.Name, err)
	}
	return nil
}
