package registry

import (
	"context"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	return scaleOf(res, obj)
}

// UpdateScale sets spec.replicas of the object from the Scale change
// produces (its resourceVersion, when set, is a precondition) and returns
// the new Scale with the change's warnings.
func (r *Registry) UpdateScale(ctx context.Context, res *api.Resource, ns, name string, change ScaleChange, dryRun bool) (*autoscalingv1.Scale, []string, error) {
	var warnings []string
	out, err := r.Mutate(ctx, Mutation{
		Resource: res, Namespace: ns, Name: name, DryRun: dryRun,
		Mutate: func(cur api.Object) (api.Object, error) {
			cs, err := scaleOf(res, cur)
			if err != nil {
				return nil, err
			}
			s, warns, err := change(cs)
			if err != nil {
				return nil, err
			}
			warnings = warns
			if err := checkScale(name, s); err != nil {
				return nil, err
			}
			if err := api.SetScaleOf(res, cur, s); err != nil {
				return nil, apierrors.NewInternalError(err)
			}
			cur.SetResourceVersion(s.ResourceVersion)
			return cur, nil
		},
	})
	if err != nil {
		return nil, nil, err
	}
	s, err := scaleOf(res, out)
	return s, warnings, err
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

// scaleOf is the object's Scale; only kinds with a scale subresource get here.
func scaleOf(res *api.Resource, obj api.Object) (*autoscalingv1.Scale, error) {
	s, err := api.ScaleOf(res, obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return s, nil
}
