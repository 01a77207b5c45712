package pods

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestCrashLoopBackOffGrowsAndResets(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	h.rt.autoExit["app"] = 1
	h.step() // attempt 0 starts and exits
	s := h.step()
	if got := ctrStatus(t, s, "app").RestartCount; got != 1 {
		t.Fatalf("first crash restarts at once: got restartCount %d, want 1", got)
	}
	// Each further crash waits 10 s, 20 s, 40 s ... capped at 5 min.
	for i, want := range []time.Duration{10, 20, 40, 80, 160, 300, 300} {
		want *= time.Second
		s = h.step()
		c := ctrStatus(t, s, "app")
		if waitingReason(c) != "CrashLoopBackOff" || c.RestartCount != int32(i+1) {
			t.Fatalf("crash %d: got %s restartCount %d, want CrashLoopBackOff %d", i+2, waitingReason(c), c.RestartCount, i+1)
		}
		if c.LastTerminationState.Terminated == nil || c.LastTerminationState.Terminated.ExitCode != 1 {
			t.Fatalf("crash %d: got lastState %+v, want terminated with exit 1", i+2, c.LastTerminationState)
		}
		if s.Phase != corev1.PodRunning {
			t.Errorf("crash-looping pod: got phase %s, want Running", s.Phase)
		}
		h.clock.Advance(want - time.Second)
		if c := ctrStatus(t, h.step(), "app"); c.RestartCount != int32(i+1) {
			t.Fatalf("crash %d: restarted after %s, want a back-off of %s", i+2, want-time.Second, want)
		}
		h.clock.Advance(time.Second)
		if c := ctrStatus(t, h.step(), "app"); c.RestartCount != int32(i+2) {
			t.Fatalf("crash %d: got restartCount %d after %s, want %d", i+2, c.RestartCount, want, i+2)
		}
	}
	// A container that ran 10 minutes starts over with no delay.
	delete(h.rt.autoExit, "app")
	h.clock.Advance(5 * time.Minute)
	before := ctrStatus(t, h.step(), "app").RestartCount
	h.clock.Advance(10 * time.Minute)
	h.rt.exit("app", 2, false)
	c := ctrStatus(t, h.step(), "app")
	if c.State.Running == nil || c.RestartCount != before+1 {
		t.Fatalf("after 10 min of running: got %+v restartCount %d, want running at once with %d", c.State, c.RestartCount, before+1)
	}
}

func TestRestartPolicyMatrix(t *testing.T) {
	cases := []struct {
		policy    corev1.RestartPolicy
		exit      int
		restarted bool
		phase     corev1.PodPhase
	}{
		{corev1.RestartPolicyAlways, 0, true, corev1.PodRunning},
		{corev1.RestartPolicyAlways, 1, true, corev1.PodRunning},
		{corev1.RestartPolicyOnFailure, 0, false, corev1.PodSucceeded},
		{corev1.RestartPolicyOnFailure, 1, true, corev1.PodRunning},
		{corev1.RestartPolicyNever, 0, false, corev1.PodSucceeded},
		{corev1.RestartPolicyNever, 1, false, corev1.PodFailed},
	}
	for _, c := range cases {
		h := newHarness(t, testPod(c.policy, "app"))
		h.step()
		h.rt.exit("app", c.exit, false)
		s := h.step()
		restarted := len(h.rt.running("app")) == 1
		if restarted != c.restarted || s.Phase != c.phase {
			t.Errorf("%s exit %d: got restarted %v phase %s, want %v %s", c.policy, c.exit, restarted, s.Phase, c.restarted, c.phase)
		}
		if !c.restarted {
			cs := ctrStatus(t, s, "app")
			if cs.State.Terminated == nil || cs.State.Terminated.ExitCode != int32(c.exit) {
				t.Errorf("%s exit %d: got state %+v, want terminated with that code", c.policy, c.exit, cs.State)
			}
			if condition(s, corev1.PodReady) != corev1.ConditionFalse {
				t.Errorf("%s exit %d: finished pod is Ready", c.policy, c.exit)
			}
		}
	}
}

func TestTerminatedReasons(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	h.step()
	h.rt.exit("app", 137, true)
	s := h.step()
	last := ctrStatus(t, s, "app").LastTerminationState.Terminated
	if last == nil || last.Reason != "OOMKilled" || last.ExitCode != 137 {
		t.Fatalf("OOM kill: got lastState %+v, want OOMKilled 137", last)
	}
	if id := ctrStatus(t, s, "app").ContainerID; id != "containerd://"+ContainerID("uid-1", "app", 1) {
		t.Errorf("container ID: got %s, want containerd://%s", id, ContainerID("uid-1", "app", 1))
	}
}

func TestInitContainersRunInOrder(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.InitContainers = []corev1.Container{{Name: "one", Image: "busybox"}, {Name: "two", Image: "busybox"}}
	h := newHarness(t, pod)
	s := h.step()
	if got := len(h.rt.running("one")) + len(h.rt.running("two")) + len(h.rt.running("app")); got != 1 || len(h.rt.running("one")) != 1 {
		t.Fatalf("start: got %d running, want only init container one", got)
	}
	if s.Phase != corev1.PodPending || condition(s, corev1.PodInitialized) != corev1.ConditionFalse {
		t.Fatalf("initializing: got %s Initialized=%s, want Pending False", s.Phase, condition(s, corev1.PodInitialized))
	}
	h.rt.exit("one", 0, false)
	h.step()
	if len(h.rt.running("two")) != 1 || len(h.rt.running("app")) != 0 {
		t.Fatalf("after one: want two running and app not started")
	}
	h.rt.exit("two", 1, false) // fails: restarted per policy
	h.step()
	s = h.step()
	if c := ctrStatus(t, s, "two"); c.RestartCount != 1 || len(h.rt.running("app")) != 0 {
		t.Fatalf("failed init: got restartCount %d, app running %d, want 1 and 0", c.RestartCount, len(h.rt.running("app")))
	}
	h.rt.exit("two", 0, false)
	s = h.step()
	if len(h.rt.running("app")) != 1 || condition(s, corev1.PodInitialized) != corev1.ConditionTrue {
		t.Fatalf("after init: got app running %d Initialized=%s, want 1 True", len(h.rt.running("app")), condition(s, corev1.PodInitialized))
	}
	if s.Phase != corev1.PodRunning || condition(s, corev1.PodReady) != corev1.ConditionTrue {
		t.Errorf("running: got %s Ready=%s, want Running True", s.Phase, condition(s, corev1.PodReady))
	}
}

func TestInitFailureWithRestartNeverFailsPod(t *testing.T) {
	pod := testPod(corev1.RestartPolicyNever, "app")
	pod.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
	h := newHarness(t, pod)
	h.rt.autoExit["init"] = 3
	h.step()
	s := h.step()
	if s.Phase != corev1.PodFailed || h.rt.count() != 1 {
		t.Fatalf("got phase %s with %d containers, want Failed with only the init container", s.Phase, h.rt.count())
	}
}

func TestImagePullBackOff(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	h.rt.pullErr = errString("registry unreachable")
	if got := waitingReason(ctrStatus(t, h.step(), "app")); got != "ErrImagePull" {
		t.Fatalf("first pull: got %s, want ErrImagePull", got)
	}
	if got := waitingReason(ctrStatus(t, h.step(), "app")); got != "ImagePullBackOff" {
		t.Fatalf("during back-off: got %s, want ImagePullBackOff", got)
	}
	h.rt.pullErr = nil
	h.clock.Advance(10 * time.Second)
	if c := ctrStatus(t, h.step(), "app"); c.State.Running == nil {
		t.Fatalf("after back-off: got %+v, want running", c.State)
	}
}

func TestSpecChangeRestartsContainer(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	h.step()
	h.pod = h.pod.DeepCopy()
	h.pod.Spec.Containers[0].Image = "busybox:2"
	c := ctrStatus(t, h.step(), "app")
	if c.RestartCount != 1 || c.State.Running == nil || len(h.rt.running("app")) != 1 {
		t.Fatalf("image change: got restartCount %d state %+v, want a new running attempt", c.RestartCount, c.State)
	}
	if last := c.LastTerminationState.Terminated; last == nil || last.ExitCode != 143 {
		t.Errorf("image change: got lastState %+v, want the stopped attempt (exit 143)", last)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
