package pods

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A sidecar with a startup probe holds back the next init container (and
// the app) until the probe passes; afterwards it never holds them again.
func TestSidecarStartupProbeGatesTheNextInit(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	side := corev1.Container{Name: "side", Image: "busybox", RestartPolicy: ptrTo(corev1.ContainerRestartPolicyAlways),
		StartupProbe: execProbe(1)}
	pod.Spec.InitContainers = []corev1.Container{side, {Name: "init", Image: "busybox"}}
	h := newHarness(t, pod)
	h.rt.execCode["side"] = 1
	h.step()
	h.clock.Advance(time.Second)
	s := h.step()
	if len(h.rt.running("init")) != 0 || len(h.rt.running("app")) != 0 || *ctrStatus(t, s, "side").Started {
		t.Fatalf("startup probe failing: got init %v app %v started %v, want neither started and side not started",
			h.rt.running("init"), h.rt.running("app"), *ctrStatus(t, s, "side").Started)
	}
	h.rt.execCode["side"] = 0
	h.clock.Advance(time.Second)
	h.step()
	if len(h.rt.running("init")) != 1 {
		t.Fatalf("startup probe passed: got init running %v, want it started", h.rt.running("init"))
	}
	h.rt.exit("init", 0, false)
	s = h.step()
	if len(h.rt.running("app")) != 1 || condition(s, corev1.PodInitialized) != corev1.ConditionTrue {
		t.Fatalf("init done: got app %v Initialized %s, want app running and True", h.rt.running("app"), condition(s, corev1.PodInitialized))
	}
	if s.Phase != corev1.PodRunning {
		t.Errorf("got phase %s, want Running (a running sidecar does not keep the pod Pending)", s.Phase)
	}
}
