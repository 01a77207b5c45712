package api

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStoredCopyReusingEqualsDecode: through a pod's life (created,
// bound, running, relabelled), the copy handed over for each write,
// adopted over the revision before, equals a whole decode of the stored
// value; it shares with the revision before exactly the sections the
// decode would share, and nothing with the writer's object.
func TestStoredCopyReusingEqualsDecode(t *testing.T) {
	r := res(t, "Pod")
	obj, _, err := DecodeJSON(r, []byte(reusePod), true)
	if err != nil {
		t.Fatal(err)
	}
	pod := obj.(*corev1.Pod)
	Default(pod)
	steps := []func(){
		func() {},
		func() {
			pod.Spec.NodeName = "hollow-17"
			pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue,
				LastTransitionTime: metav1.NewTime(time.Now())}} // to the nanosecond: the copy must cut it
		},
		func() {
			pod.Status.Phase, pod.Status.PodIP = corev1.PodRunning, "10.42.3.7"
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", Ready: true, Image: "nginx:1.27",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(time.Now())}}}}
		},
		func() { pod.Labels["extra"] = "x" },
	}
	var prev Object
	var prevSecs *Sections
	wantShared := [][len(sectionNames)]bool{{}, {true, false, false}, {true, true, false}, {false, true, true}}
	for i, step := range steps {
		step()
		data, err := Encode(pod)
		if err != nil {
			t.Fatal(err)
		}
		want, err := DecodeStored(r, data, int64(10+i))
		if err != nil {
			t.Fatal(err)
		}
		cp, secs, ok := StoredCopyReusing(r, pod, data, prev, prevSecs)
		if !ok || secs == nil {
			t.Fatalf("revision %d: declined (fingerprints %v)", i, secs)
		}
		got, _ := AdoptStored(r, cp, secs, int64(10+i), prev, prevSecs)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("revision %d: got %+v, want %+v", i, got, want)
		}
		g := got.(*corev1.Pod)
		if shared := sharedSections(g, prev); shared != wantShared[i] {
			t.Errorf("revision %d: got sections %v shared with the revision before, want %v", i, shared, wantShared[i])
		}
		if sharesMemory(g, pod) {
			t.Errorf("revision %d: the copy shares memory with the writer's object", i)
		}
		prev, prevSecs = got, secs
	}
}

// sharedSections says which of got's sections point to prev's memory.
func sharedSections(got *corev1.Pod, prev Object) (shared [len(sectionNames)]bool) {
	p, ok := prev.(*corev1.Pod)
	if !ok {
		return shared
	}
	shared[0] = reflect.ValueOf(got.Labels).Pointer() == reflect.ValueOf(p.Labels).Pointer()
	shared[1] = &got.Spec.Containers[0] == &p.Spec.Containers[0]
	shared[2] = len(got.Status.Conditions) > 0 && len(p.Status.Conditions) > 0 && &got.Status.Conditions[0] == &p.Status.Conditions[0]
	return shared
}

// sharesMemory says whether a and b have a label map, container or
// condition in common.
func sharesMemory(a, b *corev1.Pod) bool {
	return reflect.ValueOf(a.Labels).Pointer() == reflect.ValueOf(b.Labels).Pointer() ||
		&a.Spec.Containers[0] == &b.Spec.Containers[0] ||
		(len(a.Status.Conditions) > 0 && len(b.Status.Conditions) > 0 && &a.Status.Conditions[0] == &b.Status.Conditions[0])
}

// TestStoredCopyReusingSharesNothingWithAnotherKind: a Pod held under the
// key of a Node lends the Node nothing, not even metadata of equal bytes.
func TestStoredCopyReusingSharesNothingWithAnotherKind(t *testing.T) {
	revs := podRevisions(t)
	pod, secs, err := DecodeStoredReusing(res(t, "Pod"), revs[0], 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	node := &corev1.Node{ObjectMeta: *pod.(*corev1.Pod).ObjectMeta.DeepCopy()}
	node.ResourceVersion = "" // as stored
	data, err := Encode(node)
	if err != nil {
		t.Fatal(err)
	}
	got, nodeSecs, ok := StoredCopyReusing(res(t, "Node"), node, data, pod, secs)
	if nodeSecs == nil || nodeSecs.sum[0] != secs.sum[0] {
		t.Fatal("the node's metadata is not stored as the pod's")
	}
	if !ok || !reflect.DeepEqual(got.(*corev1.Node).ObjectMeta, node.ObjectMeta) {
		t.Fatalf("got %+v, %v; want a copy of the node", got, ok)
	}
	if reflect.ValueOf(got.(*corev1.Node).Labels).Pointer() == reflect.ValueOf(pod.(*corev1.Pod).Labels).Pointer() {
		t.Fatal("the node shares the pod's labels")
	}
}
