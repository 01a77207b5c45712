package api

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Upstream's reasons for the DisruptionTarget condition, which tells a
// Job's podFailurePolicy (onPodConditions: DisruptionTarget) that a pod
// was stopped by the cluster, not by its own failure. Whoever disrupts a
// pod writes the condition before deleting it.
const (
	// DisruptionByPodGC: the pod garbage collector removes a pod bound
	// to a Node that no longer exists.
	DisruptionByPodGC = "DeletionByPodGC"
	// DisruptionByTaintManager: a NoExecute taint its tolerations do not
	// (or no longer) allow.
	DisruptionByTaintManager = "DeletionByTaintManager"
	// DisruptionByEvictionAPI: POST pods/{name}/eviction.
	DisruptionByEvictionAPI = "EvictionByEvictionAPI"
)

// DisruptionTarget is the condition True with reason and message, as of now.
func DisruptionTarget(reason, message string, now time.Time) corev1.PodCondition {
	return corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: reason, Message: message, LastTransitionTime: metav1.NewTime(now.UTC())}
}

// PodCondition is the pod's condition of type t, or nil.
func PodCondition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == t {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// SetPodCondition replaces the condition of c's type (or adds it),
// keeping its transition time when the status did not change. It reports
// whether the status changed at all.
func SetPodCondition(st *corev1.PodStatus, c corev1.PodCondition) bool {
	for i, old := range st.Conditions {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		changed := old.Status != c.Status || old.Reason != c.Reason || old.Message != c.Message
		st.Conditions[i] = c
		return changed
	}
	st.Conditions = append(st.Conditions, c)
	return true
}

// Terminal says whether the pod's phase is final (Succeeded or Failed).
func Terminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}
