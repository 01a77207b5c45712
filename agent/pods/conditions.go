package pods

import (
	corev1 "k8s.io/api/core/v1"
)

// conditions computes PodScheduled, Initialized, ContainersReady and
// Ready, keeping a condition's transition time while its status holds.
func (w *worker) conditions(s corev1.PodStatus) []corev1.PodCondition {
	initialized, initReason := initializedCond(s)
	ready, readyReason := containersReady(s)
	out := []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		{Type: corev1.PodInitialized, Status: initialized, Reason: initReason},
		{Type: corev1.ContainersReady, Status: ready, Reason: readyReason},
		{Type: corev1.PodReady, Status: ready, Reason: readyReason},
	}
	now := metaTime(w.m.cfg.Clock.Now())
	for i := range out {
		out[i].LastTransitionTime = now
		if w.last == nil {
			continue
		}
		for _, prev := range w.last.Conditions {
			if prev.Type == out[i].Type && prev.Status == out[i].Status {
				out[i].LastTransitionTime = prev.LastTransitionTime
			}
		}
	}
	return out
}

func initializedCond(s corev1.PodStatus) (corev1.ConditionStatus, string) {
	for _, c := range s.InitContainerStatuses {
		if c.Started != nil && (*c.Started || c.State.Terminated != nil) {
			continue // a sidecar that has started
		}
		if t := c.State.Terminated; t == nil || t.ExitCode != 0 {
			return corev1.ConditionFalse, "ContainersNotInitialized"
		}
	}
	return corev1.ConditionTrue, ""
}

// containersReady: all app containers ready; a finished pod's
// containers are not ready, with reason PodCompleted.
func containersReady(s corev1.PodStatus) (corev1.ConditionStatus, string) {
	if s.Phase == corev1.PodSucceeded || s.Phase == corev1.PodFailed {
		return corev1.ConditionFalse, "PodCompleted"
	}
	for _, c := range s.ContainerStatuses {
		if !c.Ready {
			return corev1.ConditionFalse, "ContainersNotReady"
		}
	}
	return corev1.ConditionTrue, ""
}

// qosClass follows Kubernetes: Guaranteed when every container has equal
// cpu and memory requests and limits, BestEffort when none sets any.
func qosClass(pod *corev1.Pod) corev1.PodQOSClass {
	any, guaranteed := false, true
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			l, hasL := c.Resources.Limits[r]
			q, hasQ := c.Resources.Requests[r]
			any = any || hasL || hasQ
			if !hasL || (hasQ && q.Cmp(l) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !any:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}
