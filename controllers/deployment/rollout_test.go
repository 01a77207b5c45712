package deployment

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestCreateMakesOwnedReplicaSet(t *testing.T) {
	h := start(t)
	d := deploymentObject("web", 3, "nginx:1", intstr.FromInt32(1), intstr.FromInt32(0))
	d.Annotations = map[string]string{ChangeCauseAnnotation: "first", "team": "edge"}
	d = h.create(d)
	rs := h.waitRSes(d, 1)[0]

	hash := TemplateHash(&d.Spec.Template, nil)
	checks := []struct{ what, got, want string }{
		{"name", rs.Name, "web-" + hash},
		{"label", rs.Labels[HashLabel], hash},
		{"template label", rs.Spec.Template.Labels[HashLabel], hash},
		{"selector", rs.Spec.Selector.MatchLabels[HashLabel], hash},
		{"app label", rs.Spec.Template.Labels["app"], "web"},
		{"revision", rs.Annotations[RevisionAnnotation], "1"},
		{"desired-replicas", rs.Annotations[DesiredReplicasAnnotation], "3"},
		{"max-replicas", rs.Annotations[MaxReplicasAnnotation], "4"},
		{"change-cause", rs.Annotations[ChangeCauseAnnotation], "first"},
		{"copied annotation", rs.Annotations["team"], "edge"},
		{"replicas", fmt.Sprint(specReplicas(rs)), "3"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("replica set %s: got %q, want %q", c.what, c.got, c.want)
		}
	}
	ref := metav1.GetControllerOf(rs)
	if ref == nil || ref.UID != d.UID || ref.Kind != "Deployment" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("controller reference: got %+v, want Deployment %s with blockOwnerDeletion", ref, d.UID)
	}
	h.Eventually(waitFor, func() error {
		if got := h.get("web").Annotations[RevisionAnnotation]; got != "1" {
			return fmt.Errorf("deployment revision: got %q, want 1", got)
		}
		return nil
	})
	cur := h.settle(d)
	if c := getCondition(&cur.Status, appsv1.DeploymentAvailable); c == nil || c.Status != corev1.ConditionTrue || c.Reason != ReasonMinAvailable {
		t.Errorf("Available condition: got %+v, want True %s", c, ReasonMinAvailable)
	}
	h.Eventually(waitFor, func() error {
		c := h.condition("web", appsv1.DeploymentProgressing)
		if c.Status != corev1.ConditionTrue || c.Reason != ReasonNewRSAvailable {
			return fmt.Errorf("Progressing: got %s/%s, want True/%s", c.Status, c.Reason, ReasonNewRSAvailable)
		}
		return nil
	})
	h.waitEvent(fmt.Sprintf("Scaled up replica set %s from 0 to 3", rs.Name))
}

func (h *harness) waitEvent(message string) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		var seen []string
		for _, obj := range h.events.List("default", nil) {
			ev := obj.(*corev1.Event)
			if ev.Message == message && ev.Reason == "ScalingReplicaSet" && ev.Source.Component == Component {
				return nil
			}
			seen = append(seen, ev.Message)
		}
		return fmt.Errorf("no event %q; have %q", message, seen)
	})
}

// rollSim plays the pods of a rolling update: each tick it brings every
// ReplicaSet's status to its spec, keeping pods already available (a
// scale-down removes unavailable pods first) and making one more pod of
// the new ReplicaSet available. It checks the bounds on every state seen.
type rollSim struct {
	h                *harness
	d                *appsv1.Deployment
	maxTotal, minAvl int32
	avail            map[string]int32
}

func (s *rollSim) tick(t *testing.T) {
	t.Helper()
	rss := s.h.owned(s.d)
	var total, avail int32
	promoted := false
	for _, rs := range rss {
		total += specReplicas(rs)
		a := min(s.avail[rs.Name], specReplicas(rs))
		if !promoted && a < specReplicas(rs) && EqualIgnoreHash(&rs.Spec.Template, &s.d.Spec.Template) {
			a++
			promoted = true
		}
		if a != rs.Status.AvailableReplicas || rs.Status.Replicas != specReplicas(rs) || rs.Status.ObservedGeneration != rs.Generation {
			if !s.h.setRSStatus(rs, a) {
				a = min(s.avail[rs.Name], specReplicas(rs))
			}
		}
		s.avail[rs.Name] = a
		avail += min(s.avail[rs.Name], specReplicas(rs))
	}
	if total > s.maxTotal {
		t.Fatalf("pods asked for: got %d, want <= %d", total, s.maxTotal)
	}
	if avail < s.minAvl {
		t.Fatalf("available pods: got %d, want >= %d", avail, s.minAvl)
	}
}

func TestRollingUpdateKeepsBounds(t *testing.T) {
	for _, tc := range []struct {
		name        string
		surge, unav intstr.IntOrString
		max, min    int32
	}{
		{"surge1-unavailable0", intstr.FromInt32(1), intstr.FromInt32(0), 6, 5},
		{"percent", intstr.FromString("25%"), intstr.FromString("25%"), 7, 4},
		{"surge0-unavailable2", intstr.FromInt32(0), intstr.FromInt32(2), 5, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t)
			d := h.create(deploymentObject("web", 5, "nginx:1", tc.surge, tc.unav))
			h.waitRSes(d, 1)
			d = h.settle(d)
			first := h.rsWithImage(d, "nginx:1")
			h.modify("web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
			d = h.get("web")
			sim := &rollSim{h: h, d: d, maxTotal: tc.max, minAvl: tc.min, avail: map[string]int32{first.Name: 5}}
			h.Eventually(waitFor, func() error {
				sim.tick(t)
				cur := h.get("web")
				if err := rolledOut(cur); err != nil {
					return err
				}
				if n := specReplicas(h.rsWithImage(d, "nginx:1")); n != 0 {
					return fmt.Errorf("old replica set still asks for %d pods", n)
				}
				return nil
			})
			rev := h.rsWithImage(d, "nginx:2").Annotations[RevisionAnnotation]
			if n := len(h.owned(d)); n != 2 || rev != "2" || h.get("web").Annotations[RevisionAnnotation] != "2" {
				t.Fatalf("after rollout: got %d replica sets, new revision %q, want 2 and \"2\"", n, rev)
			}
		})
	}
}

func TestUndoRevivesOldReplicaSet(t *testing.T) {
	h := start(t)
	d := h.create(deploymentObject("web", 2, "nginx:1", intstr.FromInt32(1), intstr.FromInt32(0)))
	h.waitRSes(d, 1)
	h.settle(d)
	h.modify("web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	h.waitRSes(d, 2)
	h.settle(d)
	first := h.rsWithImage(d, "nginx:1")

	h.undo("web", first)
	h.Eventually(waitFor, func() error {
		rs := h.getRS(first.Name)
		if got := rs.Annotations[RevisionAnnotation]; got != "3" {
			return fmt.Errorf("revived replica set revision: got %q, want 3", got)
		}
		if got := rs.Annotations[RevisionHistoryAnnotation]; got != "1" {
			return fmt.Errorf("revision-history: got %q, want 1", got)
		}
		return nil
	})
	cur := h.settle(d)
	if n := len(h.owned(d)); n != 2 {
		t.Fatalf("replica sets after undo: got %d, want 2 (the old one revived)", n)
	}
	if got := cur.Annotations[RevisionAnnotation]; got != "3" {
		t.Errorf("deployment revision: got %q, want 3", got)
	}
	if got := specReplicas(h.getRS(first.Name)); got != 2 {
		t.Errorf("revived replica set replicas: got %d, want 2", got)
	}
}

func (h *harness) getRS(name string) *appsv1.ReplicaSet {
	h.T.Helper()
	obj, err := h.Client.Get(h.Ctx, replicaSetsRes, "default", name)
	if err != nil {
		h.T.Fatalf("get replica set %s: %v", name, err)
	}
	return obj.(*appsv1.ReplicaSet)
}

func TestPausedDeploymentDoesNotRollOut(t *testing.T) {
	h := start(t)
	d := h.create(deploymentObject("web", 2, "nginx:1", intstr.FromInt32(1), intstr.FromInt32(0)))
	h.waitRSes(d, 1)
	h.settle(d)
	h.modify("web", func(d *appsv1.Deployment) { d.Spec.Paused = true })
	h.Eventually(waitFor, func() error {
		if c := h.condition("web", appsv1.DeploymentProgressing); c.Reason != ReasonPaused || c.Status != corev1.ConditionUnknown {
			return fmt.Errorf("Progressing: got %s/%s, want Unknown/%s", c.Status, c.Reason, ReasonPaused)
		}
		return nil
	})
	h.modify("web", func(d *appsv1.Deployment) {
		d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
		d.Spec.Replicas = ptr(int32(4))
	})
	h.Eventually(waitFor, func() error { // scaling still happens while paused
		if n := specReplicas(h.rsWithImage(d, "nginx:1")); n != 4 {
			return fmt.Errorf("paused replica set: got %d replicas, want 4", n)
		}
		return nil
	})
	time.Sleep(300 * time.Millisecond)
	if n := len(h.owned(d)); n != 1 {
		t.Fatalf("replica sets while paused: got %d, want 1 (no rollout)", n)
	}
	h.modify("web", func(d *appsv1.Deployment) { d.Spec.Paused = false })
	h.waitRSes(d, 2)
	cur := h.settle(d)
	if n := specReplicas(h.rsWithImage(d, "nginx:2")); n != 4 {
		t.Errorf("new replica set replicas: got %d, want 4", n)
	}
	if cur.Status.AvailableReplicas != 4 {
		t.Errorf("available after resume: got %d, want 4", cur.Status.AvailableReplicas)
	}
}
