package api

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// seedObjects are realistic objects of several kinds, used as fuzz seeds.
func seedObjects() []runtime.Object {
	meta := metav1.ObjectMeta{Name: "x", Namespace: "default", Labels: map[string]string{"app": "x"}}
	pod := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1",
		Ports:     []corev1.ContainerPort{{ContainerPort: 80}},
		Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}}}}}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}}, Spec: pod}
	return []runtime.Object{
		&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: "foo"}},
		&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta, Data: map[string]string{"k": "v"}},
		&corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta, Data: map[string][]byte{"k": []byte("v")}},
		&corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: meta, Spec: pod},
		&appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: meta,
			Spec: appsv1.DeploymentSpec{Selector: sel, Template: tmpl}},
		&batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: meta,
			Spec: batchv1.JobSpec{Template: tmpl}},
	}
}

// exercise runs a decoded object through everything the server does with
// it; none of it may panic, whatever the object holds.
func exercise(t *testing.T, r *Resource, obj Object) {
	t.Helper()
	if obj == nil {
		t.Fatal("decode returned nil object and nil error")
	}
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk != r.GroupVersionKind() {
		t.Fatalf("got kind %v, want %v", gvk, r.GroupVersionKind())
	}
	data, err := Encode(obj)
	if err != nil {
		t.Fatalf("encode decoded object: %v", err)
	}
	again, _, err := DecodeJSON(r, data, true)
	if err != nil {
		t.Fatalf("re-decode own encoding %s: %v", data, err)
	}
	old := obj.DeepCopyObject().(Object)
	if obj.GetNamespace() == "" && r.Namespaced {
		obj.SetNamespace("default")
	}
	obj.SetUID("uid-1")
	PrepareForCreate(r, obj)
	_ = ValidateCreate(r, obj)
	again.SetResourceVersion("1")
	PrepareForUpdate(r, again, old)
	_ = ValidateUpdate(r, again, old)
	PrepareForStatusUpdate(r, again, old)
	_ = ValidateStatusUpdate(r, again, old)
	_ = FieldSet(r, obj)
}

// resourceIndex is the position of kind in All(), for fuzz seeds.
func resourceIndex(t testing.TB, kind string) uint8 {
	t.Helper()
	for i, r := range All() {
		if r.Kind == kind {
			return uint8(i)
		}
	}
	t.Fatalf("no resource of kind %s", kind)
	return 0
}

func FuzzDecodeJSON(f *testing.F) {
	for _, obj := range seedObjects() {
		data, err := EncodeObject(obj)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(resourceIndex(f, obj.GetObjectKind().GroupVersionKind().Kind), data)
	}
	f.Add(resourceIndex(f, "ConfigMap"), []byte(`{"metadata":{"name":"x","foo":1},"data":{"a":"1","a":"2"}}`))
	f.Add(resourceIndex(f, "Pod"), []byte(`{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"1e999"},"requests":{"cpu":"1e3"}}}]}}`))
	f.Add(resourceIndex(f, "Node"), []byte(`{"status":{"capacity":{"memory":"\u0031e99"}}}`))
	f.Fuzz(func(t *testing.T, pick uint8, data []byte) {
		r := All()[int(pick)%len(All())]
		for _, strict := range []bool{true, false} {
			obj, _, err := DecodeJSON(r, data, strict)
			if err != nil {
				if err.Error() == "" {
					t.Fatal("empty error message")
				}
				continue
			}
			exercise(t, r, obj)
		}
	})
}

func FuzzDecodeProtobuf(f *testing.F) {
	for i, obj := range seedObjects() {
		f.Add(uint8(i), protobufBody(f, obj))
	}
	f.Add(uint8(0), []byte("k8s\x00"))
	f.Fuzz(func(t *testing.T, pick uint8, data []byte) {
		seeds := seedObjects()
		kind := seeds[int(pick)%len(seeds)].GetObjectKind().GroupVersionKind()
		r, ok := ByKind(kind.Group, kind.Kind)
		if !ok {
			t.Fatalf("no resource for %v", kind)
		}
		obj, err := DecodeProtobuf(r, data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		exercise(t, r, obj)
	})
}
