package pods

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// TestReconcileProperties drives workers through random exits, OOM kills
// and clock jumps and checks what must always hold: restart counts never
// fall, Never never restarts, OnFailure never restarts after a success,
// one container per name runs and at most two are kept, back-off delays
// stay within bounds and a finished pod stays finished.
func TestReconcileProperties(t *testing.T) {
	policies := []corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}
	for seed := uint64(0); seed < 150; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		policy := policies[r.IntN(len(policies))]
		t.Run(fmt.Sprintf("seed%d-%s", seed, policy), func(t *testing.T) {
			checkRandomRun(t, r, policy)
		})
	}
}

func checkRandomRun(t *testing.T, r *rand.Rand, policy corev1.RestartPolicy) {
	h := newHarness(t, testPod(policy, "a", "b"))
	prev := map[string]int32{}
	var finished corev1.PodPhase
	for i := 0; i < 60; i++ {
		name := []string{"a", "b"}[r.IntN(2)]
		switch r.IntN(4) {
		case 0:
			code := []int{0, 1, 137}[r.IntN(3)]
			h.rt.exit(name, code, code == 137 && r.IntN(2) == 0)
		case 1:
			h.clock.Advance(time.Duration(r.IntN(400)) * time.Second)
		}
		s := h.step()
		if finished != "" && s.Phase != finished {
			t.Fatalf("step %d: phase went from %s to %s", i, finished, s.Phase)
		}
		if s.Phase == corev1.PodSucceeded || s.Phase == corev1.PodFailed {
			finished = s.Phase
		}
		for _, c := range s.ContainerStatuses {
			checkContainer(t, h, i, policy, c, prev)
		}
	}
}

func checkContainer(t *testing.T, h *harness, step int, policy corev1.RestartPolicy, c corev1.ContainerStatus, prev map[string]int32) {
	t.Helper()
	if c.RestartCount < prev[c.Name] {
		t.Fatalf("step %d %s: restartCount fell from %d to %d", step, c.Name, prev[c.Name], c.RestartCount)
	}
	if policy == corev1.RestartPolicyNever && c.RestartCount != 0 {
		t.Fatalf("step %d %s: restartPolicy Never restarted it (%d)", step, c.Name, c.RestartCount)
	}
	if last := c.LastTerminationState.Terminated; c.RestartCount > prev[c.Name] &&
		policy == corev1.RestartPolicyOnFailure && (last == nil || last.ExitCode == 0) {
		t.Fatalf("step %d %s: OnFailure restarted a container that succeeded (last state %+v)", step, c.Name, last)
	}
	prev[c.Name] = c.RestartCount
	kept, running := 0, 0
	h.rt.mu.Lock()
	for _, fc := range h.rt.ctrs {
		if fc.spec.Name == c.Name {
			kept++
			if fc.status.State == runtime.StateRunning {
				running++
			}
		}
	}
	h.rt.mu.Unlock()
	if kept > 2 || running > 1 {
		t.Fatalf("step %d %s: %d containers kept, %d running; want at most 2 and 1", step, c.Name, kept, running)
	}
	st := h.w.ctrs[c.Name]
	if st.delay > h.w.m.cfg.BackoffMax || st.nextStart.Sub(h.clock.Now()) > h.w.m.cfg.BackoffMax {
		t.Fatalf("step %d %s: back-off %s beyond the cap %s", step, c.Name, st.delay, h.w.m.cfg.BackoffMax)
	}
}
