package api

import (
	"bytes"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestEncodeOwnedIsEncode: EncodeOwned and Encode write what encoding/json
// writes and leave the object as they found it, type fields included.
func TestEncodeOwnedIsEncode(t *testing.T) {
	pod := func(tm metav1.TypeMeta) *corev1.Pod {
		return &corev1.Pod{TypeMeta: tm, ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"a": "b"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("example.com/v1")
	u.SetKind("Widget")
	u.SetName("w")
	objs := []Object{
		pod(metav1.TypeMeta{}),
		pod(metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}),
		pod(metav1.TypeMeta{APIVersion: "not/a/version", Kind: "Other"}),
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "default"}, Reason: "Scheduled"},
		u, // its type fields live in its map: encoded as Encode does
	}
	for _, obj := range objs {
		before := obj.DeepCopyObject()
		want, err := reflectEncoding(t, obj)
		if err != nil {
			t.Fatal(err)
		}
		for name, encode := range map[string]func(Object) ([]byte, error){"EncodeOwned": EncodeOwned, "Encode": Encode} {
			got, err := encode(obj)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: got %s, want %s", name, got, want)
			}
			if !reflect.DeepEqual(obj, before) {
				t.Errorf("%s changed the object: got %+v, want %+v", name, obj, before)
			}
		}
	}
}

// TestEncodeObjectKnownAllocations: EncodeObject writes a pod, as served
// and patched, without reflection (encoding/json: 27 allocations, and a
// copy of the pod when its type fields are not set).
func TestEncodeObjectKnownAllocations(t *testing.T) {
	if raceBuild {
		t.Skip("sync.Pool keeps nothing reliably under the race detector")
	}
	pod := deploymentPod(t) // no type fields
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := EncodeObject(pod); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Errorf("got %v allocations per pod, want at most 2", allocs)
	}
}
