package api

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BindPod applies a pods/binding request to a stored pod: it sets
// spec.nodeName and the PodScheduled condition. Binding is how a pod gets a
// node (a plain update may not change spec.nodeName), so the server calls
// this instead of ValidateUpdate for the binding subresource. The error
// says why the binding is refused; the server answers it with 409 Conflict.
func BindPod(pod *corev1.Pod, b *corev1.Binding, now time.Time) error {
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		return fmt.Errorf("binding of pod %s: target kind %q, want Node", pod.Name, b.Target.Kind)
	}
	if b.Target.Name == "" {
		return fmt.Errorf("binding of pod %s: target.name: Required value", pod.Name)
	}
	if b.Name != "" && b.Name != pod.Name {
		return fmt.Errorf("binding of pod %s: name %q does not match the pod", pod.Name, b.Name)
	}
	if b.UID != "" && b.UID != pod.UID {
		return fmt.Errorf("binding of pod %s: uid %s does not match the pod's %s", pod.Name, b.UID, pod.UID)
	}
	if pod.DeletionTimestamp != nil {
		return fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name)
	}
	if pod.Spec.NodeName != "" {
		return fmt.Errorf("pod %s is already assigned to node %q", pod.Name, pod.Spec.NodeName)
	}
	pod.Spec.NodeName = b.Target.Name
	SetPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(now)})
	return nil
}
