package pods

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
)

func metaTime(t time.Time) metav1.Time {
	if t.IsZero() {
		return metav1.Time{}
	}
	return metav1.NewTime(t.Truncate(time.Second))
}

// status computes the pod's status from what the worker knows.
func (w *worker) status(pod *corev1.Pod) corev1.PodStatus {
	s := corev1.PodStatus{HostIP: w.m.cfg.NodeIP, QOSClass: qosClass(pod)}
	if w.m.cfg.NodeIP != "" {
		s.HostIPs = []corev1.HostIP{{IP: w.m.cfg.NodeIP}}
	}
	for _, ip := range w.podIPs(pod) {
		s.PodIPs = append(s.PodIPs, corev1.PodIP{IP: ip})
	}
	if len(s.PodIPs) > 0 {
		s.PodIP = s.PodIPs[0].IP
	}
	if !w.startTime.IsZero() {
		t := metaTime(w.startTime)
		s.StartTime = &t
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		s.InitContainerStatuses = append(s.InitContainerStatuses, w.containerStatus(c, !isSidecar(c)))
	}
	for i := range pod.Spec.Containers {
		s.ContainerStatuses = append(s.ContainerStatuses, w.containerStatus(&pod.Spec.Containers[i], false))
	}
	s.EphemeralContainerStatuses = w.ephemeralStatuses(pod)
	s.Phase = podPhase(pod.Spec.RestartPolicy, regularInits(s.InitContainerStatuses), s.ContainerStatuses)
	w.applyFailure(&s)
	s.Conditions = append(w.conditions(s), w.disruption()...)
	return s
}

// regularInits drops the sidecars (the statuses with Started set, see
// containerStatus) from init containers' statuses: they do not complete.
func regularInits(in []corev1.ContainerStatus) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for _, s := range in {
		if s.Started == nil {
			out = append(out, s)
		}
	}
	return out
}

// containerStatus reports one container in the API's terms; init is
// false for app containers and sidecars, which report Started.
func (w *worker) containerStatus(c *corev1.Container, init bool) corev1.ContainerStatus {
	st := w.ctr(c.Name)
	cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, RestartCount: int32(st.attempt), LastTerminationState: corev1.ContainerState{Terminated: st.last}}
	started := w.fillState(&cs, st, init)
	if st.rs != nil {
		cs.ContainerID = "containerd://" + st.rs.ID
		cs.ImageID = st.rs.ImageDigest
		if st.rs.Image != "" {
			cs.Image = st.rs.Image
		}
	}
	if !init {
		cs.Started = &started
	}
	return cs
}

// fillState sets the container's state and readiness; it reports
// whether the container has started (startup probe passed).
func (w *worker) fillState(cs *corev1.ContainerStatus, st *ctrState, init bool) bool {
	switch {
	case st.rs == nil || st.id == "":
		reason := st.waiting
		if reason == "" {
			reason = "ContainerCreating"
			if init {
				reason = "PodInitializing"
			}
		}
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: reason, Message: st.message}
	case st.rs.State == runtime.StateRunning:
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metaTime(st.rs.StartedAt)}
		cs.Ready = st.probes.started() && st.probes.ready()
		return st.probes.started()
	case st.waiting != "":
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: st.waiting, Message: st.message}
		cs.LastTerminationState.Terminated = w.exitState(st)
	default:
		cs.State.Terminated = w.exitState(st)
		cs.Ready = init && st.rs.ExitCode == 0
	}
	return false
}

// podPhase follows the kubelet: a waiting container that ran before
// counts as stopped, so a crash-looping pod stays Running.
func podPhase(policy corev1.RestartPolicy, inits, ctrs []corev1.ContainerStatus) corev1.PodPhase {
	for _, s := range inits {
		if t := s.State.Terminated; t != nil && t.ExitCode == 0 {
			continue
		}
		if t := s.State.Terminated; t != nil && policy == corev1.RestartPolicyNever {
			return corev1.PodFailed
		}
		return corev1.PodPending
	}
	return appPhase(policy, ctrs)
}

func appPhase(policy corev1.RestartPolicy, ctrs []corev1.ContainerStatus) corev1.PodPhase {
	var running, waiting, stopped, succeeded int
	for _, s := range ctrs {
		switch {
		case s.State.Running != nil:
			running++
		case s.State.Terminated != nil:
			stopped++
			if s.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case s.LastTerminationState.Terminated != nil:
			stopped++
		default:
			waiting++
		}
	}
	switch {
	case waiting > 0:
		return corev1.PodPending
	case running > 0:
		return corev1.PodRunning
	case stopped == 0:
		return corev1.PodPending
	case policy == corev1.RestartPolicyAlways:
		return corev1.PodRunning
	case stopped == succeeded:
		return corev1.PodSucceeded
	case policy == corev1.RestartPolicyNever:
		return corev1.PodFailed
	}
	return corev1.PodRunning
}
