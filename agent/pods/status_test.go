package pods

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func running() corev1.ContainerStatus {
	return corev1.ContainerStatus{State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
}

func exited(code int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}
}

func waiting(ranBefore bool) corev1.ContainerStatus {
	s := corev1.ContainerStatus{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "X"}}}
	if ranBefore {
		s.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1}
	}
	return s
}

func TestPodPhase(t *testing.T) {
	type cs = []corev1.ContainerStatus
	cases := []struct {
		name   string
		policy corev1.RestartPolicy
		inits  cs
		ctrs   cs
		want   corev1.PodPhase
	}{
		{"creating", corev1.RestartPolicyAlways, nil, cs{waiting(false)}, corev1.PodPending},
		{"init running", corev1.RestartPolicyAlways, cs{running()}, cs{waiting(false)}, corev1.PodPending},
		{"init crash looping", corev1.RestartPolicyAlways, cs{waiting(true)}, cs{waiting(false)}, corev1.PodPending},
		{"init failed, never", corev1.RestartPolicyNever, cs{exited(1)}, cs{waiting(false)}, corev1.PodFailed},
		{"init done", corev1.RestartPolicyAlways, cs{exited(0)}, cs{running()}, corev1.PodRunning},
		{"running", corev1.RestartPolicyAlways, nil, cs{running(), running()}, corev1.PodRunning},
		{"one running one creating", corev1.RestartPolicyAlways, nil, cs{running(), waiting(false)}, corev1.PodPending},
		{"crash loop", corev1.RestartPolicyAlways, nil, cs{waiting(true)}, corev1.PodRunning},
		{"one done one running", corev1.RestartPolicyNever, nil, cs{exited(0), running()}, corev1.PodRunning},
		{"all succeeded, never", corev1.RestartPolicyNever, nil, cs{exited(0), exited(0)}, corev1.PodSucceeded},
		{"all succeeded, onfailure", corev1.RestartPolicyOnFailure, nil, cs{exited(0)}, corev1.PodSucceeded},
		{"one failed, never", corev1.RestartPolicyNever, nil, cs{exited(0), exited(2)}, corev1.PodFailed},
		{"exited, always", corev1.RestartPolicyAlways, nil, cs{exited(0)}, corev1.PodRunning},
		{"failed, onfailure", corev1.RestartPolicyOnFailure, nil, cs{exited(1)}, corev1.PodRunning},
	}
	for _, c := range cases {
		if got := podPhase(c.policy, c.inits, c.ctrs); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

func TestConditionsKeepTransitionTime(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	s1 := h.step()
	h.clock.Advance(secs(30))
	s2 := h.step()
	for _, typ := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
		if condition(s2, typ) != corev1.ConditionTrue {
			t.Errorf("%s: got %s, want True", typ, condition(s2, typ))
		}
	}
	if !s1.Conditions[3].LastTransitionTime.Equal(&s2.Conditions[3].LastTransitionTime) {
		t.Errorf("Ready transition time moved without a transition: %v then %v", s1.Conditions[3].LastTransitionTime, s2.Conditions[3].LastTransitionTime)
	}
	if s2.PodIP != "10.0.0.5" || s2.HostIP != "10.0.0.5" || s2.StartTime == nil || s2.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("got podIP %s hostIP %s startTime %v qos %s, want the node IP twice, a start time, BestEffort", s2.PodIP, s2.HostIP, s2.StartTime, s2.QOSClass)
	}
	if h.calls != 1 {
		t.Errorf("OnStatus: got %d calls for one status, want 1", h.calls)
	}
}
