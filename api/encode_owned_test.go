package api

import (
	"bytes"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestEncodeOwnedIsEncode: EncodeOwned writes what Encode writes and
// leaves the object as it found it, type fields included.
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
		want, err := Encode(obj)
		if err != nil {
			t.Fatal(err)
		}
		got, err := EncodeOwned(obj)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("got %s, want %s", got, want)
		}
		if !reflect.DeepEqual(obj, before) {
			t.Errorf("EncodeOwned changed the object: got %+v, want %+v", obj, before)
		}
	}
}
