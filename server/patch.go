package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/bramble-edge/bramble/api"
)

// maxJSONPatchOps is the apiserver's cap on operations in one JSON patch.
const maxJSONPatchOps = 10000

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
	var warnings []string
	out, err := a.updateObject(r.Context(), writeReq{
		res: ri.res, ns: ri.namespace, name: ri.name, dryRun: opts.dryRun,
		mutate: func(cur api.Object) (api.Object, error) {
			obj, warns, err := a.patchObject(ri.res, cur, mt, body, opts.validation)
			if err != nil {
				return nil, err
			}
			warnings = warns
			return obj, checkIdentity(ri, obj)
		},
		admit: admitUpdate(ri.res, ri.sub),
	})
	if err != nil {
		return err
	}
	addWarnings(w, warnings)
	return a.writeObject(w, ri, http.StatusOK, out)
}

// readPatch reads a PATCH request's options, media type and body, and
// checks the body is well-formed for its type.
func (a *API) readPatch(w http.ResponseWriter, r *http.Request, ri *requestInfo) (writeOptions, []byte, string, error) {
	opts, err := parseWriteOptions(ri.query)
	if err != nil {
		return opts, nil, "", err
	}
	ct := r.Header.Get("Content-Type")
	mt, err := mediaType(ct)
	if err != nil || !contains(patchMediaTypes, mt) {
		return opts, nil, "", unsupportedMedia(ct, patchMediaTypes...)
	}
	if opts.force && mt != mediaApplyPatch {
		return opts, nil, "", badRequest("force: Forbidden: may not be specified for non-apply patch")
	}
	body, err := a.readBody(w, r)
	if err != nil {
		return opts, nil, "", err
	}
	if mt != mediaApplyPatch {
		err = checkPatchBody(mt, body)
	}
	return opts, body, mt, err
}

// checkPatchBody rejects malformed patch documents with 400 before any
// object is read.
func checkPatchBody(mt string, body []byte) error {
	if mt == mediaJSONPatch {
		p, err := jsonpatch.DecodePatch(body)
		if err != nil {
			return badRequest("malformed JSON patch: %s", jsonErrorText(body, err))
		}
		if len(p) > maxJSONPatchOps {
			return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
				"the allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOps, len(p)))
		}
		return nil
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return badRequest("malformed %s body: %s", mt, jsonErrorText(body, err))
	}
	if _, ok := doc.(map[string]any); !ok {
		return badRequest("malformed %s body: the patch must be a JSON object", mt)
	}
	return nil
}

// jsonErrorText says where a JSON document is broken.
func jsonErrorText(body []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v at byte offset %d", se, se.Offset)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return "the body is empty"
	}
	return err.Error()
}

// patchObject applies a patch to cur and decodes the result. Unknown fields
// the patch brought in fail a Strict request and are warned about otherwise.
func (a *API) patchObject(res *api.Resource, cur api.Object, mt string, patch []byte, validation string) (api.Object, []string, error) {
	original, err := api.Encode(cur)
	if err != nil {
		return nil, nil, err
	}
	patched, err := applyPatch(mt, original, patch, res.New(), a.maxBody)
	if err != nil {
		return nil, nil, err
	}
	obj, warnings, err := api.DecodeJSON(res, patched, validation == validationStrict)
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	if validation == validationIgnore {
		warnings = nil
	}
	return obj, warnings, nil
}

// applyPatch applies a JSON, merge or strategic-merge patch to a JSON
// document. schema is a zero typed object whose struct tags carry the
// strategic-merge keys. Failures are 422.
func applyPatch(mt string, original, patch []byte, schema runtime.Object, limit int64) ([]byte, error) {
	var out []byte
	var err error
	switch mt {
	case mediaMergePatch:
		out, err = jsonpatch.MergePatch(original, patch)
	case mediaStrategicPatch:
		out, err = strategicpatch.StrategicMergePatch(original, patch, schema)
	case mediaJSONPatch:
		out, err = applyJSONPatch(original, patch, limit)
	default:
		return nil, unsupportedMedia(mt, patchMediaTypes...)
	}
	if err != nil {
		var se apierrors.APIStatus
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, statusError(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "the patch cannot be applied: "+err.Error())
	}
	if int64(len(out)) > limit {
		return nil, tooLarge(limit)
	}
	return out, nil
}

// applyJSONPatch applies an RFC 6902 patch. Patches with copy operations
// are applied one operation at a time so a copy bomb stops at limit.
func applyJSONPatch(doc, body []byte, limit int64) ([]byte, error) {
	p, err := jsonpatch.DecodePatch(body)
	if err != nil {
		return nil, badRequest("malformed JSON patch: %v", err)
	}
	if err := checkJSONPatchValues(p); err != nil {
		return nil, err
	}
	if !hasCopyOp(p) {
		return p.Apply(doc)
	}
	for _, op := range p {
		if doc, err = (jsonpatch.Patch{op}).Apply(doc); err != nil {
			return nil, err
		}
		if int64(len(doc)) > limit {
			return nil, tooLarge(limit)
		}
	}
	return doc, nil
}

// checkJSONPatchValues refuses add, replace and test operations without a
// "value" (RFC 6902 requires one), and a test against null: json-patch v4
// dereferences a test's null or missing value and panics (FuzzApplyPatch
// found it). Adding or replacing with null stays allowed.
func checkJSONPatchValues(p jsonpatch.Patch) error {
	for i, op := range p {
		kind := op.Kind()
		if kind != "add" && kind != "replace" && kind != "test" {
			continue
		}
		v, ok := op["value"]
		if !ok {
			return badRequest("JSON patch operation %d (%s %q): \"value\" is required", i, kind, pathOf(op))
		}
		if kind == "test" && v == nil {
			return badRequest("JSON patch operation %d (test %q): testing for null is not supported; test a field's parent instead", i, pathOf(op))
		}
	}
	return nil
}

func pathOf(op jsonpatch.Operation) string {
	p, _ := op.Path()
	return p
}

func hasCopyOp(p jsonpatch.Patch) bool {
	for _, op := range p {
		if op.Kind() == "copy" {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
