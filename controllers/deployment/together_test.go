package deployment

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/replicaset"
)

// kubelet plays the node: every live pod of the Deployment not yet ready
// is marked Running and Ready. It returns the live pods by ReplicaSet.
func (h *harness) kubelet(pods *controllers.Informer, d *appsv1.Deployment) map[string]int {
	h.T.Helper()
	live := map[string]int{}
	for _, obj := range pods.List("default", nil) {
		p := obj.(*corev1.Pod)
		ref := metav1.GetControllerOf(p)
		if ref == nil || p.DeletionTimestamp != nil || podTerminal(p) {
			continue
		}
		live[ref.Name]++
		if p.Status.Phase == corev1.PodRunning {
			continue
		}
		cp := p.DeepCopy()
		cp.Status.Phase = corev1.PodRunning
		cp.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.Now()}}
		if _, err := h.Client.UpdateStatus(h.Ctx, cp); err != nil {
			h.T.Logf("mark pod %s ready: %v (retrying)", p.Name, err)
		}
	}
	return live
}

// TestRollingUpdateWithReplicaSetController runs both controllers: pods
// are real objects, made ready by a simulated kubelet.
func TestRollingUpdateWithReplicaSetController(t *testing.T) {
	var pods *controllers.Informer
	h := start(t, func(d controllers.Deps) runner {
		pods = d.Cache.Informer(podsRes)
		return replicaset.New(d)
	})
	d := h.create(deploymentObject("web", 4, "nginx:1", intstr.FromInt32(1), intstr.FromInt32(1)))
	h.Eventually(waitFor, func() error {
		h.kubelet(pods, d)
		return rolledOut(h.get("web"))
	})
	h.modify("web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	h.Eventually(waitFor, func() error {
		h.kubelet(pods, d)
		total := int32(0)
		for _, rs := range h.owned(d) {
			total += specReplicas(rs)
		}
		if total > 5 {
			t.Fatalf("replica sets ask for %d pods, want <= 5", total)
		}
		cur := h.get("web")
		if cur.Generation > cur.Status.ObservedGeneration {
			return fmt.Errorf("generation %d not observed", cur.Generation)
		}
		return rolledOut(cur)
	})
	h.Eventually(waitFor, func() error {
		live := h.kubelet(pods, d)
		old, cur := h.rsWithImage(d, "nginx:1"), h.rsWithImage(d, "nginx:2")
		if live[old.Name] != 0 || live[cur.Name] != 4 {
			return fmt.Errorf("live pods: got old %d new %d, want 0 and 4", live[old.Name], live[cur.Name])
		}
		return nil
	})
	if c := h.condition("web", appsv1.DeploymentAvailable); c.Status != corev1.ConditionTrue {
		t.Errorf("Available: got %s, want True", c.Status)
	}
}
