package disruption

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ScaleFunc is the replicas a pod's controller wants; false when it is
// not known (the pod then counts as one expected pod).
type ScaleFunc func(ref *metav1.OwnerReference, namespace string) (int32, bool)

// Compute is a budget's status over the pods of its namespace, as
// upstream's disruption controller computes it: the pods its selector
// matches (neither finished nor being deleted), those of them Ready, how
// many must stay healthy, and the disruptions that leaves.
func Compute(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, scaleOf ScaleFunc, now time.Time) policyv1.PodDisruptionBudgetStatus {
	matched := selected(pdb, pods)
	expected, desired := expectation(pdb, matched, scaleOf)
	st := *pdb.Status.DeepCopy()
	st.DisruptedPods = stillDisrupted(st.DisruptedPods, matched, now)
	healthy := int32(0)
	for _, p := range matched {
		if _, evicted := st.DisruptedPods[p.Name]; podReady(p) && !evicted {
			healthy++
		}
	}
	st.ObservedGeneration, st.ExpectedPods, st.CurrentHealthy, st.DesiredHealthy = pdb.Generation, expected, healthy, desired
	st.DisruptionsAllowed = 0
	if expected > 0 && healthy > desired {
		st.DisruptionsAllowed = healthy - desired
	}
	cond := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse,
		Reason: policyv1.InsufficientPodsReason, ObservedGeneration: pdb.Generation, LastTransitionTime: metav1.NewTime(now.UTC().Truncate(time.Second))}
	if st.DisruptionsAllowed > 0 {
		cond.Status, cond.Reason = metav1.ConditionTrue, policyv1.SufficientPodsReason
	}
	meta.SetStatusCondition(&st.Conditions, cond)
	return st
}

// disruptedTimeout is how long a pod the eviction API listed in
// disruptedPods counts as gone while it still shows up live, as upstream.
const disruptedTimeout = 2 * time.Minute

// stillDisrupted keeps the evictions whose pod is still live and recent
// enough: those pods do not count as healthy (their deletion is on its
// way); the others leave the map.
func stillDisrupted(disrupted map[string]metav1.Time, live []*corev1.Pod, now time.Time) map[string]metav1.Time {
	if len(disrupted) == 0 {
		return nil
	}
	out := map[string]metav1.Time{}
	for _, p := range live {
		if t, ok := disrupted[p.Name]; ok && now.Before(t.Add(disruptedTimeout)) {
			out[p.Name] = t
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// selected are the live pods the budget's selector matches (a nil
// selector matches none, an empty one all).
func selected(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod) []*corev1.Pod {
	if pdb.Spec.Selector == nil {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return nil
	}
	var out []*corev1.Pod
	for _, p := range pods {
		live := p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
		if live && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// expectation is the expected pod count and the healthy pods the budget
// demands. An integer minAvailable counts the matched pods; percentages
// and maxUnavailable count what the pods' controllers want.
func expectation(pdb *policyv1.PodDisruptionBudget, pods []*corev1.Pod, scaleOf ScaleFunc) (expected, desired int32) {
	s := pdb.Spec
	if s.MinAvailable != nil && s.MinAvailable.Type == intstr.Int {
		return int32(len(pods)), s.MinAvailable.IntVal
	}
	expected = wanted(pods, scaleOf)
	switch {
	case s.MinAvailable != nil:
		n, _ := intstr.GetScaledValueFromIntOrPercent(s.MinAvailable, int(expected), true)
		return expected, int32(n)
	case s.MaxUnavailable != nil:
		n, _ := intstr.GetScaledValueFromIntOrPercent(s.MaxUnavailable, int(expected), true)
		return expected, max(expected-int32(n), 0)
	}
	return expected, expected // neither set: no disruption allowed
}

// wanted sums the replicas of the pods' controllers, each once; a pod
// whose controller's scale is unknown counts as one.
func wanted(pods []*corev1.Pod, scaleOf ScaleFunc) int32 {
	seen := map[types.UID]bool{}
	total := int32(0)
	for _, p := range pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil {
			total++
			continue
		}
		if seen[ref.UID] {
			continue
		}
		if n, ok := scaleOf(ref, p.Namespace); ok {
			seen[ref.UID] = true
			total += n
			continue
		}
		total++
	}
	return total
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
