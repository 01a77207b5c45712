package deployment

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestRecreateWaitsForOldPods(t *testing.T) {
	h := start(t)
	d := deploymentObject("db", 2, "pg:1", intstr.FromInt32(1), intstr.FromInt32(0))
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	d = h.create(d)
	old := h.waitRSes(d, 1)[0]
	h.settle(d)
	pod := h.createPod(old)

	h.modify("db", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "pg:2" })
	h.Eventually(waitFor, func() error { // old scaled to zero; its pods report gone
		rs := h.owned(d)[0]
		if n := specReplicas(rs); n != 0 {
			return fmt.Errorf("old replica set replicas: got %d, want 0", n)
		}
		h.setRSStatus(rs, 0)
		return nil
	})
	time.Sleep(300 * time.Millisecond)
	if n := len(h.owned(d)); n != 1 {
		t.Fatalf("replica sets while an old pod runs: got %d, want 1", n)
	}
	pod.Status.Phase = corev1.PodSucceeded
	if _, err := h.Client.UpdateStatus(h.Ctx, pod); err != nil {
		t.Fatalf("mark pod succeeded: %v", err)
	}
	h.waitRSes(d, 2)
	if n := h.sizeOf(d, "pg:2"); n != 2 {
		t.Fatalf("new replica set replicas: got %d, want 2 at once", n)
	}
	h.settle(d)
}

// createPod makes a running pod controlled by rs, as its controller would.
func (h *harness) createPod(rs *appsv1.ReplicaSet) *corev1.Pod {
	h.T.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: rs.Name + "-x", Namespace: "default", Labels: rs.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
		Spec: rs.Spec.Template.Spec,
	}
	obj, err := h.Client.Create(h.Ctx, p)
	if err != nil {
		h.T.Fatalf("create pod: %v", err)
	}
	p = obj.(*corev1.Pod)
	p.Status.Phase = corev1.PodRunning
	obj, err = h.Client.UpdateStatus(h.Ctx, p)
	if err != nil {
		h.T.Fatalf("mark pod running: %v", err)
	}
	return obj.(*corev1.Pod)
}

func TestRevisionHistoryLimit(t *testing.T) {
	h := start(t)
	d := deploymentObject("web", 1, "nginx:0", intstr.FromInt32(1), intstr.FromInt32(0))
	d.Spec.RevisionHistoryLimit = ptr(int32(2))
	d = h.create(d)
	h.waitRSes(d, 1)
	h.settle(d)
	for i := 1; i <= 4; i++ {
		h.modify("web", func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = "nginx:" + strconv.Itoa(i)
		})
		h.Eventually(waitFor, func() error { // wait for the new revision
			if got := h.get("web").Annotations[RevisionAnnotation]; got != strconv.Itoa(i+1) {
				return fmt.Errorf("revision: got %q, want %d", got, i+1)
			}
			return nil
		})
		h.settle(d)
	}
	h.Eventually(waitFor, func() error {
		rss := h.owned(d)
		var revs []string
		for _, rs := range rss {
			revs = append(revs, rs.Annotations[RevisionAnnotation])
		}
		if len(rss) != 3 {
			return fmt.Errorf("replica sets kept: got %d (revisions %v), want 3 (current + 2)", len(rss), revs)
		}
		for _, rs := range rss {
			if revisionOf(rs) < 3 {
				return fmt.Errorf("kept revisions %v, want 3, 4 and 5", revs)
			}
		}
		return nil
	})
}

func TestProgressDeadlineExceeded(t *testing.T) {
	h := start(t)
	d := deploymentObject("web", 2, "nginx:1", intstr.FromInt32(1), intstr.FromInt32(0))
	d.Spec.ProgressDeadlineSeconds = ptr(int32(1))
	d = h.create(d)
	h.waitRSes(d, 1) // no pod ever becomes available
	h.Eventually(waitFor, func() error {
		c := h.condition("web", appsv1.DeploymentProgressing)
		if c.Status != corev1.ConditionFalse || c.Reason != ReasonTimedOut {
			return fmt.Errorf("Progressing: got %s/%s, want False/%s", c.Status, c.Reason, ReasonTimedOut)
		}
		return nil
	})
	if c := h.condition("web", appsv1.DeploymentAvailable); c.Status != corev1.ConditionFalse || c.Reason != ReasonMinUnavailable {
		t.Errorf("Available: got %s/%s, want False/%s", c.Status, c.Reason, ReasonMinUnavailable)
	}
	h.settle(d) // pods arrive late: the rollout still completes
	h.Eventually(waitFor, func() error {
		if c := h.condition("web", appsv1.DeploymentProgressing); c.Reason != ReasonNewRSAvailable {
			return fmt.Errorf("Progressing reason: got %s, want %s", c.Reason, ReasonNewRSAvailable)
		}
		return nil
	})
}

func TestScaleMidRolloutIsProportional(t *testing.T) {
	h := start(t)
	d := h.create(deploymentObject("web", 10, "nginx:1", intstr.FromInt32(3), intstr.FromInt32(2)))
	h.waitRSes(d, 1)
	h.settle(d)
	h.modify("web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	h.Eventually(waitFor, func() error { // stuck: new pods never become available
		old, cur := h.sizeOf(d, "nginx:1"), h.sizeOf(d, "nginx:2")
		if old != 8 || cur != 5 {
			return fmt.Errorf("mid-rollout sizes: got old %d new %d, want 8 and 5", old, cur)
		}
		return nil
	})
	h.modify("web", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr(int32(20)) })
	h.Eventually(waitFor, func() error { // 13 of 13 -> 23 allowed: 8*23/13=14, 5*23/13=9
		old, cur := h.sizeOf(d, "nginx:1"), h.sizeOf(d, "nginx:2")
		if old != 14 || cur != 9 {
			return fmt.Errorf("scaled sizes: got old %d new %d, want 14 and 9", old, cur)
		}
		return nil
	})
	h.settle(d)
}

func TestAdoptsMatchingOrphanAndReleasesMismatch(t *testing.T) {
	h := start(t)
	d := deploymentObject("web", 1, "nginx:1", intstr.FromInt32(1), intstr.FromInt32(0))
	orphan := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-orphan", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr(int32(0)), Selector: d.Spec.Selector,
			Template: *d.Spec.Template.DeepCopy()},
	}
	orphan.Spec.Template.Spec.Containers[0].Image = "nginx:0"
	if _, err := h.Client.Create(h.Ctx, orphan); err != nil {
		t.Fatalf("create orphan: %v", err)
	}
	d = h.create(d)
	h.waitRSes(d, 2)
	rs := h.getRS("web-orphan")
	rs.Labels = map[string]string{"app": "other"}
	if _, err := h.Client.Update(h.Ctx, rs); err != nil {
		t.Fatalf("relabel: %v", err)
	}
	h.Eventually(waitFor, func() error {
		if ref := metav1.GetControllerOf(h.getRS("web-orphan")); ref != nil {
			return fmt.Errorf("relabelled replica set: got controller %s, want none", ref.UID)
		}
		return nil
	})
}
