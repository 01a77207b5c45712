package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/bramble-edge/bramble/api"
)

// maxJSONPatchOps is the apiserver's cap on operations in one JSON patch.
const maxJSONPatchOps = 10000

// PatchTypes are the patch types Patch takes (apply goes to Apply).
var PatchTypes = []types.PatchType{types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType}

// Patch applies a JSON, merge or strategic-merge patch to the stored
// object (sub "status": to its status) and admits the result as an
// update. It also returns the unknown-field warnings the patch brought in.
func (r *Registry) Patch(ctx context.Context, res *api.Resource, ns, name, sub string, pt types.PatchType, body []byte, opts WriteOptions) (api.Object, []string, error) {
	if err := CheckPatchBody(pt, body); err != nil {
		return nil, nil, err
	}
	var warnings []string
	out, err := r.Mutate(ctx, Mutation{
		Resource: res, Namespace: ns, Name: name, Subresource: sub, DryRun: opts.DryRun,
		Mutate: func(cur api.Object) (api.Object, error) {
			obj, warns, err := r.patchObject(res, cur, pt, body, opts)
			if err != nil {
				return nil, err
			}
			warnings = warns
			return obj, checkIdentity(res, ns, name, obj)
		},
	})
	if err != nil {
		return nil, nil, err
	}
	return out, opts.warnings(warnings), nil
}

// CheckPatchBody rejects malformed patch documents with 400 before any
// object is read.
func CheckPatchBody(pt types.PatchType, body []byte) error {
	if pt == types.JSONPatchType {
		p, err := jsonpatch.DecodePatch(body)
		if err != nil {
			return BadRequest("malformed JSON patch: %s", jsonErrorText(body, err))
		}
		if len(p) > maxJSONPatchOps {
			return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
				"the allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOps, len(p)))
		}
		return nil
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return BadRequest("malformed %s body: %s", pt, jsonErrorText(body, err))
	}
	if _, ok := doc.(map[string]any); !ok {
		return BadRequest("malformed %s body: the patch must be a JSON object", pt)
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
func (r *Registry) patchObject(res *api.Resource, cur api.Object, pt types.PatchType, patch []byte, opts WriteOptions) (api.Object, []string, error) {
	original, err := api.Encode(cur)
	if err != nil {
		return nil, nil, err
	}
	if pt == types.StrategicMergePatchType && res.Unstructured() {
		return nil, nil, StatusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
			fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s",
				types.JSONPatchType, types.MergePatchType, types.ApplyPatchType))
	}
	patched, err := ApplyPatch(pt, original, patch, res.New(), r.maxBytes)
	if err != nil {
		return nil, nil, err
	}
	obj, warnings, err := api.DecodeJSON(res, patched, opts.strict())
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	return obj, warnings, nil
}

// ApplyPatch applies a JSON, merge or strategic-merge patch to a JSON
// document. schema is a zero typed object whose struct tags carry the
// strategic-merge keys. Failures are 422; a result over limit bytes 413.
func ApplyPatch(pt types.PatchType, original, patch []byte, schema runtime.Object, limit int64) ([]byte, error) {
	var out []byte
	var err error
	switch pt {
	case types.MergePatchType:
		out, err = jsonpatch.MergePatch(original, patch)
	case types.StrategicMergePatchType:
		out, err = strategicpatch.StrategicMergePatch(original, patch, schema)
	case types.JSONPatchType:
		out, err = applyJSONPatch(original, patch, limit)
	default:
		return nil, StatusError(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
			fmt.Sprintf("patch type %q is not supported", pt))
	}
	if err != nil {
		var se apierrors.APIStatus
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, unappliablePatch(err)
	}
	if int64(len(out)) > limit {
		return nil, TooLarge(limit)
	}
	return out, nil
}

// applyJSONPatch applies an RFC 6902 patch. Patches with copy operations
// are applied one operation at a time so a copy bomb stops at limit.
func applyJSONPatch(doc, body []byte, limit int64) ([]byte, error) {
	p, err := jsonpatch.DecodePatch(body)
	if err != nil {
		return nil, BadRequest("malformed JSON patch: %v", err)
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
			return nil, TooLarge(limit)
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
			return BadRequest("JSON patch operation %d (%s %q): \"value\" is required", i, kind, pathOf(op))
		}
		if kind == "test" && v == nil {
			return BadRequest("JSON patch operation %d (test %q): testing for null is not supported; test a field's parent instead", i, pathOf(op))
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
