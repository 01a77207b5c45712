package api

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestBindPod(t *testing.T) {
	now := time.Unix(1700000000, 0)
	pod := func() *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "u1"},
			Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse}}}}
	}
	binding := func(node string) *corev1.Binding {
		return &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Target: corev1.ObjectReference{Kind: "Node", Name: node}}
	}
	p := pod()
	if err := BindPod(p, binding("pi1"), now); err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "pi1" || len(p.Status.Conditions) != 1 || p.Status.Conditions[0].Status != corev1.ConditionTrue {
		t.Errorf("got node %q, conditions %+v", p.Spec.NodeName, p.Status.Conditions)
	}
	if err := BindPod(p, binding("pi2"), now); err == nil || !strings.Contains(err.Error(), `already assigned to node "pi1"`) {
		t.Errorf("rebind: got %v", err)
	}
	deleting := pod()
	deleting.DeletionTimestamp = &metav1.Time{Time: now}
	for name, tc := range map[string]struct {
		pod  *corev1.Pod
		b    *corev1.Binding
		want string
	}{
		"deleting": {deleting, binding("pi1"), "being deleted"},
		"no node":  {pod(), binding(""), "target.name: Required value"},
		"kind":     {pod(), &corev1.Binding{Target: corev1.ObjectReference{Kind: "Pod", Name: "x"}}, `target kind "Pod"`},
		"uid":      {pod(), &corev1.Binding{ObjectMeta: metav1.ObjectMeta{UID: "u2"}, Target: corev1.ObjectReference{Name: "x"}}, "uid u2"},
	} {
		if err := BindPod(tc.pod, tc.b, now); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, tc.want)
		}
	}
}

// TestBindPodTransitionTime: as upstream's binding, PodScheduled's
// lastTransitionTime moves only when its status changes.
func TestBindPodTransitionTime(t *testing.T) {
	before, now := metav1.NewTime(time.Unix(1600000000, 0)), time.Unix(1700000000, 0)
	for _, tc := range []struct {
		old  corev1.ConditionStatus
		want metav1.Time
	}{
		{corev1.ConditionFalse, metav1.NewTime(now)},
		{corev1.ConditionTrue, before},
	} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: tc.old, LastTransitionTime: before}}}}
		if err := BindPod(p, &corev1.Binding{Target: corev1.ObjectReference{Name: "pi1"}}, now); err != nil {
			t.Fatal(err)
		}
		got := PodCondition(p, corev1.PodScheduled)
		if got == nil || got.Status != corev1.ConditionTrue || !got.LastTransitionTime.Equal(&tc.want) {
			t.Errorf("PodScheduled %s -> True: got %+v, want True since %v", tc.old, got, tc.want)
		}
	}
}
