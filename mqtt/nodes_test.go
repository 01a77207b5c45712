package mqtt

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestHeartbeatAnnotations(t *testing.T) {
	for _, tc := range []struct {
		annotations map[string]string
		wantErr     string
	}{
		{map[string]string{AnnotationVXLANMAC: "02:aa:bb:cc:dd:ee", AnnotationNodeIP: "192.168.1.7"}, ""},
		{map[string]string{AnnotationVXLANMAC: "not-a-mac"}, `annotations["bramble.io/vxlan-mac"]`},
		{map[string]string{AnnotationNodeIP: "10.0.0.300"}, `annotations["bramble.io/node-ip"]: got "10.0.0.300"`},
		{map[string]string{"example.com/other": "x"}, `annotations["example.com/other"]: not an annotation an agent sets`},
	} {
		h := sampleHeartbeat()
		h.Annotations = tc.annotations
		data, err := h.Encode()
		if tc.wantErr == "" {
			if err != nil {
				t.Fatalf("Encode(%v): %v", tc.annotations, err)
			}
			back, err := DecodeHeartbeat(data)
			if err != nil || !equality.Semantic.DeepEqual(back.Annotations, tc.annotations) {
				t.Errorf("round trip of %v: got %v, %v", tc.annotations, back.Annotations, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("Encode(%v): got %v, want an error with %q", tc.annotations, err, tc.wantErr)
		}
	}
}

// TestRouteNode: only what routes need survives; status churn does not
// change the result.
func TestRouteNode(t *testing.T) {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "pi-0", UID: "u1", Labels: map[string]string{"a": "b"},
			Annotations: map[string]string{AnnotationVXLANMAC: "02:00:00:00:00:01", ImagePlatformsAnnotation: "{}"}},
		Spec: corev1.NodeSpec{PodCIDR: "10.42.3.0/24", PodCIDRs: []string{"10.42.3.0/24"}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.5"}},
			Capacity:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	got := RouteNode(n)
	want := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: "pi-0", UID: "u1",
			Annotations: map[string]string{AnnotationVXLANMAC: "02:00:00:00:00:01"}},
		Spec:   n.Spec,
		Status: corev1.NodeStatus{Addresses: n.Status.Addresses}}
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("RouteNode: got %+v, want %+v", got, want)
	}
	b, err := EncodeRouteNode(n)
	if err != nil {
		t.Fatal(err)
	}
	var back corev1.Node
	if err := json.Unmarshal(b, &back); err != nil || !equality.Semantic.DeepEqual(&back, want) {
		t.Errorf("EncodeRouteNode: %s decodes to %+v (%v), want %+v", b, &back, err, want)
	}
	churned := n.DeepCopy()
	churned.Status.Conditions[0].Status = corev1.ConditionFalse
	churned.Annotations[ImagePlatformsAnnotation] = `{"x":["linux/arm64"]}`
	if !equality.Semantic.DeepEqual(RouteNode(churned), got) {
		t.Error("status churn changed the RouteNode")
	}
}
