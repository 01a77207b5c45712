package api

import (
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ScaleOf is the Scale the "scale" subresource of obj (of kind r) shows:
// a custom resource's from its CRD's specReplicasPath,
// statusReplicasPath and labelSelectorPath, a built-in kind's from
// ScaleFor.
func ScaleOf(r *Resource, obj Object) (*autoscalingv1.Scale, error) {
	sc := r.custom.scalePaths()
	if sc == nil {
		return ScaleFor(obj)
	}
	u := obj.(*unstructured.Unstructured)
	s := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp()},
	}
	s.Spec.Replicas = int32(pathInt(u, sc.SpecReplicasPath))
	s.Status.Replicas = int32(pathInt(u, sc.StatusReplicasPath))
	if sc.LabelSelectorPath != nil {
		sel, _, _ := unstructured.NestedString(u.Object, pathFields(*sc.LabelSelectorPath)...)
		s.Status.Selector = sel
	}
	return s, nil
}

// SetScaleOf writes a Scale's spec.replicas into obj (of kind r).
func SetScaleOf(r *Resource, obj Object, s *autoscalingv1.Scale) error {
	sc := r.custom.scalePaths()
	if sc == nil {
		return SetScale(obj, s)
	}
	if s.Spec.Replicas < 0 {
		return fmt.Errorf("spec.replicas: Invalid value: %d: must be greater than or equal to 0", s.Spec.Replicas)
	}
	u := obj.(*unstructured.Unstructured)
	return unstructured.SetNestedField(u.Object, int64(s.Spec.Replicas), pathFields(sc.SpecReplicasPath)...)
}

func (ck *CustomKind) scalePaths() *apiextv1.CustomResourceSubresourceScale {
	if ck == nil {
		return nil
	}
	return ck.Scale
}

func pathFields(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }

func pathInt(u *unstructured.Unstructured, p string) int64 {
	v, _, _ := unstructured.NestedFieldNoCopy(u.Object, pathFields(p)...)
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}
