package replicaset

import (
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// BenchmarkSyncWalk is the part of a sync of a 1,000-pod ReplicaSet that
// visits every pod: claiming each, then counting the status.
func BenchmarkSyncWalk(b *testing.B) {
	rs, pods := walkFixture(1000)
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		owned := make([]*corev1.Pod, 0, len(pods))
		for _, p := range pods {
			if claimOf(rs, sel, p) == keep {
				owned = append(owned, p)
			}
		}
		if st, _ := computeStatus(rs, owned, nil, now); st.ReadyReplicas != int32(len(pods)) {
			b.Fatalf("got %d ready, want %d", st.ReadyReplicas, len(pods))
		}
	}
}

// walkFixture is a ReplicaSet and n ready pods it controls.
func walkFixture(n int) (*appsv1.ReplicaSet, []*corev1.Pod) {
	lbls := map[string]string{"app": "fleet", "pod-template-hash": "6c9c57585d"}
	replicas := int32(n)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "fleet-6c9c57585d", Namespace: "default", UID: "rs-uid", Generation: 1},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, MinReadySeconds: 0,
			Selector: &metav1.LabelSelector{MatchLabels: lbls},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbls}}},
	}
	yes := true
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("fleet-6c9c57585d-%05d", i), Namespace: "default",
				UID: types.UID(fmt.Sprint("pod-", i)), Labels: map[string]string{"app": "fleet", "pod-template-hash": "6c9c57585d"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet",
					Name: rs.Name, UID: rs.UID, Controller: &yes}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
				{Type: corev1.PodInitialized, Status: corev1.ConditionTrue},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		}
	}
	return rs, pods
}

func TestHasLabels(t *testing.T) {
	want := labelPairs(map[string]string{"app": "web", "tier": "front"})
	for _, tc := range []struct {
		have map[string]string
		ok   bool
	}{
		{map[string]string{"app": "web", "tier": "front"}, true},
		{map[string]string{"app": "web", "tier": "front", "extra": "x"}, true},
		{map[string]string{"app": "web"}, false},
		{map[string]string{"app": "web", "tier": "back"}, false},
		{map[string]string{"app": "", "tier": "front"}, false},
		{nil, false},
	} {
		if got := hasLabels(tc.have, want); got != tc.ok {
			t.Errorf("hasLabels(%v) = %v, want %v", tc.have, got, tc.ok)
		}
	}
	if !hasLabels(nil, labelPairs(nil)) {
		t.Error("no labels wanted: got false, want true")
	}
}
