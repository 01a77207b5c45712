package pods

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestPreStopFailureIsToldAndTheContainerStopsAnyway(t *testing.T) {
	for _, tc := range []struct {
		grace    int64
		min, max time.Duration
	}{
		{30, 29 * time.Second, 30 * time.Second}, // the hook's time counts against it
		{1, minGrace, minGrace},                  // SIGTERM always gets 2 s after a hook
	} {
		pod := testPod(corev1.RestartPolicyAlways, "app")
		pod.Spec.TerminationGracePeriodSeconds = &tc.grace
		pod.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{
			Exec: &corev1.ExecAction{Command: []string{"/bin/drain"}}}}
		h := newHarness(t, pod)
		evs := withEvents(h)
		h.step()
		id := h.rt.running("app")[0]
		h.rt.execCode["app"] = 1
		h.w.terminate(context.Background(), pod)
		if n := evs.count("FailedPreStopHook", `Exec lifecycle hook for Container "app" in Pod "web_default(uid-1)" failed - error: command "/bin/drain" exited with 1`); n != 1 {
			t.Errorf("grace %d: got %d FailedPreStopHook events, want 1", tc.grace, n)
		}
		if g := h.rt.stops[id]; g < tc.min || g > tc.max {
			t.Errorf("grace %d: got SIGTERM grace %s, want %s-%s", tc.grace, g, tc.min, tc.max)
		}
	}
}
