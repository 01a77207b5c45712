package replicaset

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// pod builds a pod for the ordering and status tests.
type podOpt func(*corev1.Pod)

func mkPod(name string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
		Labels: map[string]string{"app": "web", "tier": "web"}, CreationTimestamp: metav1.NewTime(t0)}}
	p.Status.Phase = corev1.PodPending
	for _, o := range opts {
		o(p)
	}
	return p
}

func on(node string) podOpt { return func(p *corev1.Pod) { p.Spec.NodeName = node } }
func phase(ph corev1.PodPhase) podOpt {
	return func(p *corev1.Pod) { p.Status.Phase = ph }
}
func readySince(at time.Time) podOpt {
	return func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(at)}}
	}
}
func created(at time.Time) podOpt {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(at) }
}
func restarted(n int32) podOpt {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", RestartCount: n}}
	}
}

func TestDeleteOrderPrefersTheLeastUsefulPods(t *testing.T) {
	pods := []*corev1.Pod{
		mkPod("old-ready", on("n1"), readySince(t0.Add(time.Minute))),
		mkPod("new-ready", on("n1"), readySince(t0.Add(time.Hour))),
		mkPod("running-not-ready", on("n1"), phase(corev1.PodRunning)),
		mkPod("pending", on("n1")),
		mkPod("unknown", on("n1"), phase(corev1.PodUnknown)),
		mkPod("unscheduled", phase(corev1.PodPending)),
		mkPod("restarty", on("n1"), phase(corev1.PodRunning), restarted(4)),
		mkPod("newer-running", on("n1"), phase(corev1.PodRunning), created(t0.Add(time.Second))),
	}
	want := []string{"unscheduled", "pending", "unknown", "restarty", "newer-running",
		"running-not-ready", "new-ready", "old-ready"}
	for range 5 { // any input order gives the same answer
		shuffled := slices.Clone(pods)
		for i := range shuffled {
			j := (i*7 + 3) % len(shuffled)
			shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
		}
		pods = shuffled
		if got := names(podsToDelete(pods, len(pods))); !slices.Equal(got, want) {
			t.Fatalf("delete order %v, want %v", got, want)
		}
	}
	if got := names(podsToDelete(pods, 2)); !slices.Equal(got, want[:2]) {
		t.Fatalf("podsToDelete(2) = %v, want %v", got, want[:2])
	}
}

func TestComputeStatus(t *testing.T) {
	rs := rsObject("web", 3, 10)
	rs.Generation = 4
	now := t0.Add(time.Hour)
	owned := []*corev1.Pod{
		mkPod("available", readySince(now.Add(-time.Minute))),
		mkPod("ready-4s", readySince(now.Add(-4*time.Second))),
		mkPod("not-ready", func(p *corev1.Pod) { p.Labels = map[string]string{"app": "web"} }),
	}
	st, recheck := computeStatus(rs, owned, nil, now)
	want := appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 2, ReadyReplicas: 2,
		AvailableReplicas: 1, ObservedGeneration: 4}
	if !equalStatus(st, want) {
		t.Fatalf("status %+v, want %+v", st, want)
	}
	if recheck != 6*time.Second {
		t.Fatalf("recheck %v, want 6s (ready-4s becomes available then)", recheck)
	}
}

func equalStatus(a, b appsv1.ReplicaSetStatus) bool {
	a.Conditions, b.Conditions = nil, nil
	return reflect.DeepEqual(a, b)
}

func TestComputeStatusReplicaFailure(t *testing.T) {
	rs := rsObject("web", 3, 0)
	st, _ := computeStatus(rs, nil, errors.New("create pod: quota"), t0)
	c := failureCondition(st)
	if c == nil || c.Status != corev1.ConditionTrue || c.Reason != "FailedCreate" || c.Message != "create pod: quota" {
		t.Fatalf("ReplicaFailure %+v, want True FailedCreate \"create pod: quota\"", c)
	}
	rs.Status = st
	owned := []*corev1.Pod{mkPod("a"), mkPod("b"), mkPod("c"), mkPod("d")}
	again, _ := computeStatus(rs, owned, errors.New("delete pod d: boom"), t0.Add(time.Minute))
	if c2 := failureCondition(again); c2 == nil || *c2 != *c {
		t.Fatalf("a second failure changed the condition to %+v, want it kept as %+v", c2, c)
	}
	rs.Status = again
	cleared, _ := computeStatus(rs, owned[:3], nil, t0.Add(2*time.Minute))
	if c3 := failureCondition(cleared); c3 != nil {
		t.Fatalf("ReplicaFailure %+v after a clean sync, want none", c3)
	}
	fresh, _ := computeStatus(rsObject("x", 1, 0), owned[:3], errors.New("boom"), t0)
	if c4 := failureCondition(fresh); c4 == nil || c4.Reason != "FailedDelete" {
		t.Fatalf("ReplicaFailure with surplus pods %+v, want reason FailedDelete", c4)
	}
}

func TestClaimOf(t *testing.T) {
	rs := rsObject("web", 1, 0)
	rs.UID = "rs-uid"
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	ours := func(p *corev1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(rs, replicaSetKind)}
	}
	theirs := func(p *corev1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "x", UID: "x", Controller: ptr(true)}}
	}
	relabel := func(p *corev1.Pod) { p.Labels = map[string]string{"app": "other"} }
	going := func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: t0} }
	deletingRS := rs.DeepCopy()
	deletingRS.DeletionTimestamp = &metav1.Time{Time: t0}
	for _, tc := range []struct {
		name string
		rs   *appsv1.ReplicaSet
		pod  *corev1.Pod
		want claim
	}{
		{"ours matching", rs, mkPod("a", ours), keep},
		{"ours not matching", rs, mkPod("a", ours, relabel), release},
		{"ours not matching, rs deleting", deletingRS, mkPod("a", ours, relabel), ignore},
		{"orphan matching", rs, mkPod("a"), adopt},
		{"orphan matching, rs deleting", deletingRS, mkPod("a"), ignore},
		{"orphan matching, pod deleting", rs, mkPod("a", going), ignore},
		{"orphan not matching", rs, mkPod("a", relabel), ignore},
		{"another controller's", rs, mkPod("a", theirs), ignore},
	} {
		if got := claimOf(tc.rs, sel, tc.pod); got != tc.want {
			t.Errorf("%s: claimOf = %d, want %d", tc.name, got, tc.want)
		}
	}
}
