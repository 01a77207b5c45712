package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// getScale answers GET on deployments/scale and replicasets/scale.
func (a *API) getScale(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	s, err := a.reg.GetScale(r.Context(), ri.res, ri.namespace, ri.name)
	if err != nil {
		return err
	}
	return writeScale(w, s)
}

// updateScale answers PUT on the scale subresource.
func (a *API) updateScale(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	obj, opts, warnings, err := a.readRequestObject(w, r, ri, api.ScaleResource)
	if err != nil {
		return err
	}
	scale := obj.(*autoscalingv1.Scale)
	return a.writeScaleChange(w, r, ri, opts, func(*autoscalingv1.Scale) (*autoscalingv1.Scale, []string, error) {
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
	if err := registry.CheckPatchBody(types.PatchType(mt), body); err != nil {
		return err
	}
	return a.writeScaleChange(w, r, ri, opts, func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, []string, error) {
		original, err := json.Marshal(cur)
		if err != nil {
			return nil, nil, err
		}
		patched, err := registry.ApplyPatch(types.PatchType(mt), original, body, &autoscalingv1.Scale{}, a.maxBody)
		if err != nil {
			return nil, nil, err
		}
		obj, warnings, err := api.DecodeJSON(api.ScaleResource, patched, opts.FieldValidation == validationStrict)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		return obj.(*autoscalingv1.Scale), warnings, nil
	})
}

// writeScaleChange sets spec.replicas from the Scale change produces and
// answers with the new Scale.
func (a *API) writeScaleChange(w http.ResponseWriter, r *http.Request, ri *requestInfo, opts writeOptions, change registry.ScaleChange) error {
	s, warnings, err := a.reg.UpdateScale(r.Context(), ri.res, ri.namespace, ri.name, change, opts.DryRun)
	if err != nil {
		return err
	}
	if opts.FieldValidation != validationIgnore {
		addWarnings(w, warnings)
	}
	return writeScale(w, s)
}

func writeScale(w http.ResponseWriter, s *autoscalingv1.Scale) error {
	data, err := api.EncodeObject(s)
	if err != nil {
		return fmt.Errorf("encode scale: %w", err)
	}
	writeRaw(w, http.StatusOK, mediaJSON, data)
	return nil
}
