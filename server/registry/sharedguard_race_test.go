//go:build race

package registry

import (
	"testing"

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
