package job

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// podFailurePolicy: the first rule matching a failed pod decides what its
// failure means. FailJob fails the Job (reason PodFailurePolicy), Ignore
// does not count it, Count counts it as usual, FailIndex fails its index
// (Indexed Jobs with backoffLimitPerIndex).

// failureAction is the action of the first rule matching pod, with the
// message upstream writes for FailJob; Count when no rule matches.
func failureAction(job *batchv1.Job, pod *corev1.Pod) (batchv1.PodFailurePolicyAction, string) {
	pol := job.Spec.PodFailurePolicy
	if pol == nil {
		return batchv1.PodFailurePolicyActionCount, ""
	}
	for i, rule := range pol.Rules {
		if r := rule.OnExitCodes; r != nil {
			if name, code, ok := matchExitCodes(r, pod); ok {
				return rule.Action, fmt.Sprintf("Container %s for pod %s/%s failed with exit code %d matching %s rule at index %d",
					name, pod.Namespace, pod.Name, code, rule.Action, i)
			}
		}
		if matchConditions(rule.OnPodConditions, pod) {
			return rule.Action, fmt.Sprintf("Pod %s/%s has condition matching %s rule at index %d", pod.Namespace, pod.Name, rule.Action, i)
		}
	}
	return batchv1.PodFailurePolicyActionCount, ""
}

// matchExitCodes finds a terminated container whose exit code the
// requirement matches (NotIn never matches a success, 0).
func matchExitCodes(r *batchv1.PodFailurePolicyOnExitCodesRequirement, pod *corev1.Pod) (string, int32, bool) {
	for _, st := range slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses) {
		t := st.State.Terminated
		if t == nil || (r.ContainerName != nil && *r.ContainerName != st.Name) {
			continue
		}
		in := slices.Contains(r.Values, t.ExitCode)
		if (r.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && in) ||
			(r.Operator == batchv1.PodFailurePolicyOnExitCodesOpNotIn && !in && t.ExitCode != 0) {
			return st.Name, t.ExitCode, true
		}
	}
	return "", 0, false
}

func matchConditions(patterns []batchv1.PodFailurePolicyOnPodConditionsPattern, pod *corev1.Pod) bool {
	for _, p := range patterns {
		for _, c := range pod.Status.Conditions {
			if c.Type == p.Type && c.Status == p.Status {
				return true
			}
		}
	}
	return false
}

// successPolicyMet reports the first successPolicy rule the completed
// indexes satisfy, with upstream's message.
func successPolicyMet(job *batchv1.Job, done indexSet) (string, bool) {
	sp := job.Spec.SuccessPolicy
	if sp == nil || !indexed(job) {
		return "", false
	}
	for i, rule := range sp.Rules {
		have, want := len(done), -1
		if rule.SucceededIndexes != nil {
			sel := parseIndexes(*rule.SucceededIndexes, *job.Spec.Completions)
			have, want = 0, len(sel)
			for idx := range sel {
				if done[idx] {
					have++
				}
			}
		}
		if rule.SucceededCount != nil {
			want = int(*rule.SucceededCount)
		}
		if want >= 0 && have >= want {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}
