package registry

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
)

// ScaleChange produces the Scale a scale write asks for, given the current
// one; it also returns unknown-field warnings.
type ScaleChange func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, []string, error)

// GetScale reads the object's replicas as a Scale.
func (r *Registry) GetScale(ctx context.Context, res *api.Resource, ns, name string) (*autoscalingv1.Scale, error) {
	obj, err := r.Get(ctx, res, ns, name)
	if err != nil {
		return nil, err
	}
	return ScaleOf(obj), nil
}

// UpdateScale sets spec.replicas of the object from the Scale change
// produces (its resourceVersion, when set, is a precondition) and returns
// the new Scale with the change's warnings.
func (r *Registry) UpdateScale(ctx context.Context, res *api.Resource, ns, name string, change ScaleChange, dryRun bool) (*autoscalingv1.Scale, []string, error) {
	var warnings []string
	out, err := r.Mutate(ctx, Mutation{
		Resource: res, Namespace: ns, Name: name, DryRun: dryRun,
		Mutate: func(cur api.Object) (api.Object, error) {
			s, warns, err := change(ScaleOf(cur))
			if err != nil {
				return nil, err
			}
			warnings = warns
			if err := checkScale(name, s); err != nil {
				return nil, err
			}
			setReplicas(cur, s.Spec.Replicas)
			cur.SetResourceVersion(s.ResourceVersion)
			return cur, nil
		},
	})
	if err != nil {
		return nil, nil, err
	}
	return ScaleOf(out), warnings, nil
}

func checkScale(name string, s *autoscalingv1.Scale) error {
	if s.Name != name {
		return BadRequest("the name of the object (%s) does not match the name on the URL (%s)", s.Name, name)
	}
	if s.Spec.Replicas < 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, s.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), s.Spec.Replicas, "must be greater than or equal to 0")})
	}
	return nil
}

// ScaleOf describes a Deployment's or ReplicaSet's replicas as a Scale.
func ScaleOf(obj api.Object) *autoscalingv1.Scale {
	var want *int32
	var have int32
	var sel *metav1.LabelSelector
	switch o := obj.(type) {
	case *appsv1.Deployment:
		want, have, sel = o.Spec.Replicas, o.Status.Replicas, o.Spec.Selector
	case *appsv1.ReplicaSet:
		want, have, sel = o.Spec.Replicas, o.Status.Replicas, o.Spec.Selector
	}
	s := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name: obj.GetName(), Namespace: obj.GetNamespace(), UID: obj.GetUID(),
			ResourceVersion: obj.GetResourceVersion(), CreationTimestamp: obj.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: 1},
		Status: autoscalingv1.ScaleStatus{Replicas: have},
	}
	if want != nil {
		s.Spec.Replicas = *want
	}
	if selector, err := metav1.LabelSelectorAsSelector(sel); err == nil && sel != nil {
		s.Status.Selector = selector.String()
	}
	return s
}

func setReplicas(obj api.Object, n int32) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		o.Spec.Replicas = &n
	case *appsv1.ReplicaSet:
		o.Spec.Replicas = &n
	}
}
