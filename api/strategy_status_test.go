package api

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// statusPod is a pod with every part a status write might touch set,
// differing from another made with a different tag everywhere.
func statusPod(tag string) *corev1.Pod {
	grace := int64(len(tag))
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: types.UID("uid-" + tag), ResourceVersion: "rv-" + tag,
			Labels: map[string]string{"l": tag}, Annotations: map[string]string{"a": tag},
			Finalizers: []string{"f/" + tag}, DeletionGracePeriodSeconds: &grace,
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs-" + tag}}},
		Spec: corev1.PodSpec{NodeName: "node-" + tag, Tolerations: []corev1.Toleration{{Key: tag}},
			Containers: []corev1.Container{{Name: "c", Image: "img:" + tag, Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodPhase("Phase" + tag), PodIP: "10.0.0." + tag,
			Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionStatus(tag)}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "c", Image: "img:" + tag}}},
	}
}

func statusNode(tag string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n", UID: types.UID("uid-" + tag), ResourceVersion: "rv-" + tag,
			Labels: map[string]string{"l": tag}, Annotations: map[string]string{"a": tag}},
		Spec: corev1.NodeSpec{PodCIDR: "10.1.0.0/24-" + tag, Unschedulable: tag == "new",
			Taints: []corev1.Taint{{Key: tag, Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionStatus(tag)}},
			Capacity: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110")}},
	}
}

// TestPrepareStatusTypedMatchesGeneral shows that the typed status
// preparation of pods and nodes gives exactly what the general one gives,
// shares nothing with the stored object, and is taken only for them.
func TestPrepareStatusTypedMatchesGeneral(t *testing.T) {
	cases := []struct {
		name      string
		next, old func() Object
		mutate    func(Object)
	}{
		{"pod", func() Object { return statusPod("new") }, func() Object { return statusPod("old") },
			func(o Object) { p := o.(*corev1.Pod); p.Labels["l"], p.Spec.Tolerations[0].Key = "x", "x" }},
		{"node", func() Object { return statusNode("new") }, func() Object { return statusNode("old") },
			func(o Object) { n := o.(*corev1.Node); n.Labels["l"], n.Spec.Taints[0].Key = "x", "x" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := c.old()
			typed, general := c.next(), c.next()
			if !prepareStatusTyped(typed, old) {
				t.Fatal("typed path not taken")
			}
			prepareStatusGeneral(general, old)
			if !reflect.DeepEqual(typed, general) {
				t.Fatalf("typed path:\n%+v\nwant what the general path gives:\n%+v", typed, general)
			}
			c.mutate(typed)
			if !reflect.DeepEqual(old, c.old()) {
				t.Fatal("the prepared object shares metadata or spec with the stored one")
			}
		})
	}
	if prepareStatusTyped(&corev1.ConfigMap{}, &corev1.ConfigMap{}) {
		t.Fatal("typed path taken for a ConfigMap")
	}
}

// BenchmarkPrepareStatusPod compares the typed and general preparation
// of a pod's status write: go test -run '^$' -bench PrepareStatusPod ./api/
func BenchmarkPrepareStatusPod(b *testing.B) {
	old := statusPod("old")
	for _, path := range []struct {
		name string
		fn   func(obj, old Object)
	}{{"typed", func(o, p Object) { prepareStatusTyped(o, p) }}, {"general", prepareStatusGeneral}} {
		b.Run(path.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				path.fn(statusPod("new"), old)
			}
		})
	}
}
