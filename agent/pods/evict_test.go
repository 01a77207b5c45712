package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// An evicted pod's containers are gone; after an agent restart its
// worker must not start them again nor report over the Failed status.
func TestEvictedPodStaysEndedAcrossRestart(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: ReasonEvicted, Message: "The node was low on resource: memory. "}
	h := newHarness(t, pod)
	s := h.step()
	if s.Phase != corev1.PodFailed || s.Reason != ReasonEvicted || h.rt.count() != 0 {
		t.Errorf("got phase %s reason %q and %d containers started, want Failed Evicted and none", s.Phase, s.Reason, h.rt.count())
	}
	if len(s.ContainerStatuses) != 0 || h.calls != 0 {
		t.Errorf("got %d container statuses and %d reports, want the server's status left alone", len(s.ContainerStatuses), h.calls)
	}
	if !h.w.isEnded() {
		t.Errorf("worker of an evicted pod: got not ended, want ended (no usage, no second eviction)")
	}
}
