package scheduler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// nodeReady keeps pods off nodes that are cordoned (spec.unschedulable)
// or whose Ready condition is not True.
//
// Like Kubernetes, the scheduler treats both as NoSchedule taints, so a pod
// that tolerates them (DaemonSet pods do) still fits:
//
//   - spec.unschedulable is the taint node.kubernetes.io/unschedulable;
//     the reason is kube-scheduler's "node(s) were unschedulable";
//   - Ready False (or no Ready condition yet) is node.kubernetes.io/not-ready
//     and Ready Unknown is node.kubernetes.io/unreachable; the reason is the
//     taint filter's "node(s) had untolerated taint {node.kubernetes.io/not-ready: }",
//     which is what kube-scheduler reports once the node lifecycle controller
//     has tainted such a node. A node that carries that taint itself is left
//     to the taint filter.
type nodeReady struct{}

var unschedulableTaint = corev1.Taint{Key: taintUnschedulable, Effect: corev1.TaintEffectNoSchedule}

func (nodeReady) filter(c *cycle, n *nodeInfo) []string {
	tolerations := c.pod.pod.Spec.Tolerations
	if n.unschedulable && !tolerated(tolerations, &unschedulableTaint) {
		return reasonUnschedulable
	}
	if n.readyTaint != nil && !tolerated(tolerations, n.readyTaint) {
		return n.readyReason
	}
	return nil
}

// tolerated reports whether any of the tolerations tolerates the taint.
func tolerated(tolerations []corev1.Toleration, t *corev1.Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(t) {
			return true
		}
	}
	return false
}

// untoleratedReason is kube-scheduler's reason for a taint the pod does not
// tolerate.
func untoleratedReason(t *corev1.Taint) string {
	return fmt.Sprintf("node(s) had untolerated taint {%s: %s}", t.Key, t.Value)
}
