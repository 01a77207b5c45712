package api

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScaleFor returns the autoscaling/v1 Scale that the "scale" subresource of
// a Deployment, ReplicaSet or StatefulSet shows: the object's identity, spec.replicas,
// status.replicas and the selector as a string.
func ScaleFor(obj Object) (*autoscalingv1.Scale, error) {
	var want, have int32
	var sel *metav1.LabelSelector
	switch o := obj.(type) {
	case *appsv1.Deployment:
		want, have, sel = int32(replicas(o.Spec.Replicas)), o.Status.Replicas, o.Spec.Selector
	case *appsv1.ReplicaSet:
		want, have, sel = int32(replicas(o.Spec.Replicas)), o.Status.Replicas, o.Spec.Selector
	case *appsv1.StatefulSet:
		want, have, sel = int32(replicas(o.Spec.Replicas)), o.Status.Replicas, o.Spec.Selector
	default:
		return nil, fmt.Errorf("scale of %T: only Deployments, ReplicaSets and StatefulSets scale", obj)
	}
	selector := ""
	if s, err := metav1.LabelSelectorAsSelector(sel); err == nil {
		selector = s.String()
	}
	return &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: obj.GetName(), Namespace: obj.GetNamespace(), UID: obj.GetUID(),
			ResourceVersion: obj.GetResourceVersion(), CreationTimestamp: obj.GetCreationTimestamp()},
		Spec:   autoscalingv1.ScaleSpec{Replicas: want},
		Status: autoscalingv1.ScaleStatus{Replicas: have, Selector: selector},
	}, nil
}

// SetScale copies a Scale's spec.replicas into a Deployment or ReplicaSet
// (a copy the caller then stores through PrepareForUpdate and
// ValidateUpdate, which reject negative counts). A negative count is
// refused here too.
func SetScale(obj Object, s *autoscalingv1.Scale) error {
	if s.Spec.Replicas < 0 {
		return fmt.Errorf("spec.replicas: Invalid value: %d: must be greater than or equal to 0", s.Spec.Replicas)
	}
	n := s.Spec.Replicas
	switch o := obj.(type) {
	case *appsv1.Deployment:
		o.Spec.Replicas = &n
	case *appsv1.ReplicaSet:
		o.Spec.Replicas = &n
	case *appsv1.StatefulSet:
		o.Spec.Replicas = &n
	default:
		return fmt.Errorf("scale of %T: only Deployments, ReplicaSets and StatefulSets scale", obj)
	}
	return nil
}

// replicas is spec.replicas with its default, 1, when unset.
func replicas(p *int32) int64 {
	if p == nil {
		return 1
	}
	return int64(*p)
}
