package server

import (
	"encoding/json"
	"fmt"
	"net/http"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
)

// toScale produces the Scale a scale write asks for, given the current
// object; it also returns unknown-field warnings.
type toScale func(cur api.Object) (*autoscalingv1.Scale, []string, error)

// getScale answers GET on deployments/scale and replicasets/scale.
func (a *API) getScale(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	obj, _, err := a.load(r.Context(), ri.res, ri.namespace, ri.name)
	if err != nil {
		return err
	}
	return writeScale(w, obj)
}

// updateScale answers PUT on the scale subresource.
func (a *API) updateScale(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	obj, opts, warnings, err := a.readRequestObject(w, r, ri, api.ScaleResource)
	if err != nil {
		return err
	}
	scale := obj.(*autoscalingv1.Scale)
	return a.writeScaleChange(w, r, ri, opts, func(api.Object) (*autoscalingv1.Scale, []string, error) {
		return scale.DeepCopy(), warnings, nil
	})
}

// patchScale answers PATCH on the scale subresource (kubectl scale sends a
// merge patch); the patch applies to the Scale, not the Deployment.
func (a *API) patchScale(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	opts, body, mt, err := a.readPatch(w, r, ri)
	if err != nil {
		return err
	}
	if mt == mediaApplyPatch {
		return unsupportedMedia(mt, mediaJSONPatch, mediaMergePatch, mediaStrategicPatch)
	}
	return a.writeScaleChange(w, r, ri, opts, func(cur api.Object) (*autoscalingv1.Scale, []string, error) {
		original, err := json.Marshal(scaleOf(cur))
		if err != nil {
			return nil, nil, err
		}
		patched, err := applyPatch(mt, original, body, &autoscalingv1.Scale{}, a.maxBody)
		if err != nil {
			return nil, nil, err
		}
		obj, warnings, err := api.DecodeJSON(api.ScaleResource, patched, opts.validation == validationStrict)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		return obj.(*autoscalingv1.Scale), warnings, nil
	})
}

// writeScaleChange sets spec.replicas of the object from the Scale that
// change produces (its resourceVersion, when set, is a precondition) and
// answers with the new Scale.
func (a *API) writeScaleChange(w http.ResponseWriter, r *http.Request, ri *requestInfo, opts writeOptions, change toScale) error {
	var warnings []string
	out, err := a.updateObject(r.Context(), writeReq{
		res: ri.res, ns: ri.namespace, name: ri.name, dryRun: opts.dryRun,
		mutate: func(cur api.Object) (api.Object, error) {
			s, warns, err := change(cur)
			if err != nil {
				return nil, err
			}
			warnings = warns
			if err := checkScale(ri, s); err != nil {
				return nil, err
			}
			setReplicas(cur, s.Spec.Replicas)
			cur.SetResourceVersion(s.ResourceVersion)
			return cur, nil
		},
		admit: admitUpdate(ri.res, ""),
	})
	if err != nil {
		return err
	}
	if opts.validation != validationIgnore {
		addWarnings(w, warnings)
	}
	return writeScale(w, out)
}

func checkScale(ri *requestInfo, s *autoscalingv1.Scale) error {
	if s.Name != ri.name {
		return badRequest("the name of the object (%s) does not match the name on the URL (%s)", s.Name, ri.name)
	}
	if s.Spec.Replicas < 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, s.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), s.Spec.Replicas, "must be greater than or equal to 0")})
	}
	return nil
}

func writeScale(w http.ResponseWriter, obj api.Object) error {
	data, err := api.EncodeObject(scaleOf(obj))
	if err != nil {
		return fmt.Errorf("encode scale: %w", err)
	}
	writeRaw(w, http.StatusOK, mediaJSON, data)
	return nil
}

// scaleOf describes a Deployment's or ReplicaSet's replicas as a Scale.
func scaleOf(obj api.Object) *autoscalingv1.Scale {
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
