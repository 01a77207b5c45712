package api

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// storedCopyEqualsDecode checks StoredCopy(obj) against the decode of
// obj's encoding.
func storedCopyEqualsDecode(t *testing.T, kind string, obj Object) {
	t.Helper()
	r := res(t, kind)
	data, err := Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	want, err := DecodeStored(r, data, 5)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := StoredCopy(r, obj)
	if !ok {
		t.Fatalf("StoredCopy declined %s", kind)
	}
	got.SetResourceVersion("5")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("StoredCopy differs from the decode:\n got %#v\nwant %#v", got, want)
	}
}

// TestStoredCopyRoundTripsLikeJSON: what a JSON round trip changes, the
// copy changes too: empty slices and maps under omitempty, times to the
// second (micro for MicroTime), a pointer to a zero time, quantities'
// cached forms, int-or-strings, empty byte slices.
func TestStoredCopyRoundTripsLikeJSON(t *testing.T) {
	q := resource.MustParse("1500m")
	_ = q.String() // caches the canonical form, which a decode has not
	zero := metav1.Time{}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{},
		Finalizers: []string{}, CreationTimestamp: metav1.NewTime(time.Now()), DeletionTimestamp: &zero},
		Spec: corev1.PodSpec{Volumes: []corev1.Volume{}, Containers: []corev1.Container{{Name: "c", Args: []string{},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": q}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Port: intstr.IntOrString{Type: intstr.Int, IntVal: 80, StrVal: "stale"}}}}}}},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: "Ready",
			LastTransitionTime: metav1.NewTime(time.Now().Add(time.Hour))}}}}
	storedCopyEqualsDecode(t, "Pod", pod)
	storedCopyEqualsDecode(t, "Secret", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Data: map[string][]byte{"empty": {}, "nil": nil, "k": []byte("v")}})
	storedCopyEqualsDecode(t, "Event", &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"},
		EventTime: metav1.NewMicroTime(time.Now())})
}

// TestStoredCopyDeclines: what it cannot reproduce exactly, it declines.
func TestStoredCopyDeclines(t *testing.T) {
	bad := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: map[string]string{"a": "\xff"}}}
	if _, ok := StoredCopy(res(t, "ConfigMap"), bad); ok {
		t.Fatal("copied a string that is not UTF-8")
	}
	if _, ok := StoredCopy(res(t, "ConfigMap"), &corev1.Secret{}); ok {
		t.Fatal("copied an object of another kind")
	}
	if _, ok := StoredCopy(NewUnstructured(Resource{Group: "example.com", Version: "v1", Name: "widgets", Kind: "Widget", Namespaced: true}), &corev1.ConfigMap{}); ok {
		t.Fatal("copied for an unstructured kind")
	}
}

// TestQuantityRoundTripsKept: a quantity's kept round trip is the one a
// marshal and parse give, on first use and later; one with a big decimal
// behind a pointer is not kept (its copies would share it).
func TestQuantityRoundTripsKept(t *testing.T) {
	bigs := 0
	for _, s := range []string{"100m", "128Mi", "0", "1500m", "2Gi", "1e3", "0.5", "123456789012345678901234567890", "1.000000001"} {
		q := resource.MustParse(s)
		want, ok := marshalParse(q)
		if !ok {
			t.Fatalf("%s: no round trip", s)
		}
		for range 2 {
			if got, ok := roundTripQuantity(q); !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: got %#v, want %#v", s, got, want)
			}
		}
		quantityTrips.RLock()
		_, kept := quantityTrips.m[q]
		quantityTrips.RUnlock()
		big := q.DeepCopy() != q
		if kept == big {
			t.Errorf("%s: kept %v, want %v", s, kept, !big)
		}
		if big {
			bigs++
		}
	}
	if bigs == 0 {
		t.Error("no quantity with a big decimal tried")
	}
}
