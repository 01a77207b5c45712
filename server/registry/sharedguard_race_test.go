//go:build race

package registry

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestGuardSharedCatchesAChange: in race builds, changing an object an
// update was given as the current one panics (see guardShared).
func TestGuardSharedCatchesAChange(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	check := guardShared(pod)
	check() // unchanged: no panic
	pod.Status.Message = "changed"
	defer func() {
		if recover() == nil {
			t.Error("a changed shared object did not panic")
		}
	}()
	check()
}

// TestGuardGivenCatchesAnUnfixedPod: in race builds, giving the cache a
// pod whose time a decode would cut to the second panics (see guardGiven).
func TestGuardGivenCatchesAnUnfixedPod(t *testing.T) {
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	guardGiven(podsResource, pod) // as a decode makes it: no panic
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(time.Unix(1795000000, 5))}}
	defer func() {
		if recover() == nil {
			t.Error("a pod with a time to the nanosecond did not panic")
		}
	}()
	guardGiven(podsResource, pod)
}
