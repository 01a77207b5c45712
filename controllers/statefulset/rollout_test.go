package statefulset

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
	"github.com/bramble-edge/bramble/controllers/history"
)

func setImage(image string) func(*appsv1.StatefulSet) {
	return func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = image }
}

// revisionsOf is the set's revisions in the cache, by name.
func (h *harness) revisionsOf(set *appsv1.StatefulSet) map[string]int64 {
	out := map[string]int64{}
	for _, cr := range h.ctrl.history.Owned(set) {
		out[cr.Name] = cr.Revision
	}
	return out
}

func TestPartitionedRollingUpdateAndUndo(t *testing.T) {
	h := start(t)
	h.runAgent(0, nil)
	set := controllertest.MustCreate(h.Env, setObject("web", 3))
	h.waitStatus("web", rolledOut(3))
	first := h.getSet("web").Status.UpdateRevision
	if want := history.Name("web", ""); len(first) <= len(want) || first[:len(want)] != want {
		t.Fatalf("revision name %q, want web-<hash>", first)
	}

	h.editSet("web", func(s *appsv1.StatefulSet) {
		setImage("registry.local/db:2")(s)
		s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr(int32(2))
	})
	h.waitStatus("web", func(s appsv1.StatefulSetStatus, gen int64) error {
		if s.ObservedGeneration < gen || s.UpdatedReplicas != 1 || s.CurrentReplicas != 2 || s.ReadyReplicas != 3 ||
			s.CurrentRevision != first || s.UpdateRevision == first {
			return fmt.Errorf("status %+v, want web-2 alone at a new revision, current still %s", s, first)
		}
		return nil
	})
	second := h.getSet("web").Status.UpdateRevision
	pods := h.waitPods(set, "web-0", "web-1", "web-2")
	if pods["web-0"] != first || pods["web-1"] != first || pods["web-2"] != second {
		t.Fatalf("pod revisions %v, want web-0 and web-1 at %s, web-2 at %s", pods, first, second)
	}

	h.editSet("web", func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr(int32(0)) })
	h.waitStatus("web", rolledOut(3))
	if got := h.getSet("web").Status.CurrentRevision; got != second {
		t.Fatalf("current revision %s after the full rollout, want %s", got, second)
	}

	// Undo as kubectl does it: the first revision's template goes back.
	h.editSet("web", setImage("registry.local/db:1"))
	h.waitStatus("web", rolledOut(3))
	if got := h.getSet("web").Status.UpdateRevision; got != first {
		t.Fatalf("update revision %s after undo, want the first one back, %s", got, first)
	}
	if got := h.revisionsOf(set); len(got) != 2 || got[first] != 3 || got[second] != 2 {
		t.Errorf("revisions %v, want %s renumbered 3 and %s at 2", got, first, second)
	}
}

func TestOnDeleteWaitsForDeletion(t *testing.T) {
	h := start(t)
	h.runAgent(0, nil)
	obj := setObject("web", 2)
	obj.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	set := controllertest.MustCreate(h.Env, obj)
	h.waitStatus("web", rolledOut(2))
	first := h.getSet("web").Status.CurrentRevision
	h.editSet("web", setImage("registry.local/db:2"))
	time.Sleep(300 * time.Millisecond)
	if pods := h.waitPods(set, "web-0", "web-1"); pods["web-0"] != first || pods["web-1"] != first {
		t.Fatalf("pod revisions %v: OnDelete replaced a pod by itself", pods)
	}
	old := controllertest.MustGet[*corev1.Pod](h.Env, podResource, "default", "web-1")
	if err := h.Client.Delete(h.Ctx, podResource, "default", "web-1", controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.Eventually(waitFor, func() error {
		pods := h.livePods(set)
		cur, ok := h.pods.Get("default", "web-1")
		if !ok || cur.GetUID() == old.UID || pods["web-1"] == first || pods["web-0"] != first {
			return fmt.Errorf("pods %v, want web-1 recreated at the new revision and web-0 untouched", pods)
		}
		return nil
	})
}

func TestMaxUnavailableUpdatesSeveralAtOnce(t *testing.T) {
	h := start(t)
	seenTwo := false
	h.runAgent(150*time.Millisecond, nil)
	obj := setObject("web", 4)
	obj.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	mu := intstr.FromInt32(2)
	obj.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &mu}
	set := controllertest.MustCreate(h.Env, obj)
	h.waitStatus("web", rolledOut(4))
	h.editSet("web", setImage("registry.local/db:2"))
	deadline := time.Now().Add(waitFor)
	for time.Now().Before(deadline) {
		cur := h.getSet("web")
		s := cur.Status
		unavailable := 4 - int(s.AvailableReplicas)
		if unavailable > 2 {
			t.Fatalf("%d pods unavailable at once (status %+v), want at most 2", unavailable, s)
		}
		seenTwo = seenTwo || unavailable == 2
		if s.ObservedGeneration == cur.Generation && s.UpdatedReplicas == 4 && s.AvailableReplicas == 4 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.waitStatus("web", rolledOut(4))
	if !seenTwo {
		t.Errorf("never saw 2 pods updating at once with maxUnavailable 2")
	}
	if pods := h.waitPods(set, "web-0", "web-1", "web-2", "web-3"); pods["web-0"] != h.getSet("web").Status.UpdateRevision {
		t.Errorf("pod revisions %v after the rollout", pods)
	}
}

func TestMinReadySecondsHoldsTheNextPod(t *testing.T) {
	h := start(t)
	h.runAgent(0, nil)
	obj := setObject("web", 2)
	obj.Spec.MinReadySeconds = 1
	set := controllertest.MustCreate(h.Env, obj)
	h.waitStatus("web", func(s appsv1.StatefulSetStatus, _ int64) error {
		if s.ReadyReplicas != 1 || s.AvailableReplicas != 0 {
			return fmt.Errorf("status %+v, want web-0 Ready but not yet available", s)
		}
		return nil
	})
	if pods := h.livePods(set); len(pods) != 1 {
		t.Fatalf("pods %v while web-0 is not available yet, want web-0 alone", pods)
	}
	h.waitStatus("web", rolledOut(2))
	web0 := controllertest.MustGet[*corev1.Pod](h.Env, podResource, "default", "web-0")
	web1 := controllertest.MustGet[*corev1.Pod](h.Env, podResource, "default", "web-1")
	if ready := api.PodCondition(web0, corev1.PodReady).LastTransitionTime.Time; web1.CreationTimestamp.Time.Before(ready.Add(time.Second).Truncate(time.Second)) {
		t.Errorf("web-1 created at %v, less than minReadySeconds after web-0 turned Ready at %v", web1.CreationTimestamp, ready)
	}
}

func TestRevisionNameCollisionRaisesCollisionCount(t *testing.T) {
	h := start(t)
	h.runAgent(0, nil)
	controllertest.MustCreate(h.Env, setObject("web", 1))
	h.waitStatus("web", rolledOut(1))
	next := h.getSet("web")
	setImage("registry.local/db:2")(next)
	data, err := history.Patch(&next.Spec.Template)
	if err != nil {
		t.Fatal(err)
	}
	taken := history.Name("web", history.Hash(data, nil))
	controllertest.MustCreate(h.Env, &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: taken, Namespace: "default"},
		Data:       runtime.RawExtension{Raw: []byte(`{"someone":"else"}`)}, Revision: 1})
	h.editSet("web", setImage("registry.local/db:2"))
	h.waitStatus("web", rolledOut(1))
	s := h.getSet("web").Status
	if s.CollisionCount == nil || *s.CollisionCount != 0 || s.UpdateRevision != history.Name("web", history.Hash(data, s.CollisionCount)) {
		t.Errorf("status %+v, want collisionCount 0 and the revision named with it (not %s)", s, taken)
	}
}
