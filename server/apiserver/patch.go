package apiserver

import (
	"net/http"
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

var patchMediaTypes = []string{mediaJSONPatch, mediaMergePatch, mediaStrategicPatch, mediaApplyPatch}

// patch answers PATCH on an object or its status. Server-side apply goes
// to apply; the other patch types are applied to the stored object's JSON.
func (a *API) patch(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	opts, body, mt, err := a.readPatch(w, r, ri)
	if err != nil {
		return err
	}
	if mt == mediaApplyPatch {
		return a.apply(w, r, ri, opts, body)
	}
	out, warnings, err := a.reg.Patch(r.Context(), ri.res, ri.namespace, ri.name, ri.sub, types.PatchType(mt), body, opts)
	if err != nil {
		return err
	}
	addWarnings(w, warnings)
	return a.writeObject(w, ri, http.StatusOK, out)
}

// readPatch reads a PATCH request's options, media type and body.
func (a *API) readPatch(w http.ResponseWriter, r *http.Request, ri *requestInfo) (writeOptions, []byte, string, error) {
	opts, err := parseWriteOptions(ri.query)
	if err != nil {
		return opts, nil, "", err
	}
	ct := r.Header.Get("Content-Type")
	mt, err := mediaType(ct)
	if err != nil || !slices.Contains(patchMediaTypes, mt) {
		return opts, nil, "", unsupportedMedia(ct, patchMediaTypes...)
	}
	if opts.Force && mt != mediaApplyPatch {
		return opts, nil, "", badRequest("force: Forbidden: may not be specified for non-apply patch")
	}
	body, err := a.readBody(w, r)
	return opts, body, mt, err
}

// apply answers an application/apply-patch+yaml PATCH: 201 when it
// created the object, 200 otherwise.
func (a *API) apply(w http.ResponseWriter, r *http.Request, ri *requestInfo, opts writeOptions, body []byte) error {
	out, err := a.reg.Apply(r.Context(), ri.res, ri.namespace, ri.name, ri.sub, body, opts)
	if err != nil {
		return err
	}
	code := http.StatusOK
	if out.Created {
		code = http.StatusCreated
		out.Warnings = append(out.Warnings, newObjectWarnings(ri.res, out.Object)...)
	}
	addWarnings(w, out.Warnings)
	return a.writeObject(w, ri, code, out.Object)
}
