package controllers

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podOf(name, ownerKind, owner string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	if owner != "" {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: ownerKind, Name: owner, Controller: &yes}}
	}
	return p
}

func drain(q *Queue) []string {
	var keys []string
	for q.Len() > 0 {
		k, _ := q.Get()
		q.Done(k)
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// OwnerChanged queues the controller of a pod (before and after an
// update), counts what its expectations wait for, and ignores other kinds.
func TestOwnerChanged(t *testing.T) {
	q, exp := NewQueue(time.Millisecond, time.Second), NewExpectations(time.Minute, time.Now)
	exp.ExpectCreate("ns/a", "p")
	if !OwnerChanged(q, exp, "apps/v1", "StatefulSet", nil, podOf("p", "StatefulSet", "a"), false) {
		t.Error("a pod of set a: got not owned, want owned")
	}
	if got := drain(q); !slices.Equal(got, []string{"ns/a"}) {
		t.Errorf("add: queued %v, want [ns/a]", got)
	}
	if exp.Observed("ns/a", "other", false) {
		t.Error("the create of p: still outstanding after its add was seen")
	}
	OwnerChanged(q, exp, "apps/v1", "StatefulSet", podOf("p", "StatefulSet", "a"), podOf("p", "StatefulSet", "b"), false)
	if got := drain(q); !slices.Equal(got, []string{"ns/a", "ns/b"}) {
		t.Errorf("update to another owner: queued %v, want [ns/a ns/b]", got)
	}
	if OwnerChanged(q, exp, "apps/v1", "StatefulSet", nil, podOf("p", "DaemonSet", "a"), true) {
		t.Error("a pod of a DaemonSet: got owned by a StatefulSet")
	}
	if got := drain(q); len(got) != 0 {
		t.Errorf("another kind's pod: queued %v, want nothing", got)
	}
}
