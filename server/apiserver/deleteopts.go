package apiserver

import (
	"bytes"
	"net/http"
	"net/url"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// deleteOptions reads DeleteOptions from the body (JSON or protobuf; empty
// means defaults) and lets the query parameters override them.
func (a *API) deleteOptions(w http.ResponseWriter, r *http.Request, ri *requestInfo) (*registry.DeleteOptions, error) {
	body, err := a.readBody(w, r)
	if err != nil {
		return nil, err
	}
	opts, err := decodeDeleteOptions(r.Header.Get("Content-Type"), body)
	if err != nil {
		return nil, err
	}
	q := ri.query
	if err := resolvePropagation(opts, q); err != nil {
		return nil, err
	}
	grace, set, err := intParam(q, "gracePeriodSeconds")
	if err != nil {
		return nil, err
	}
	if set {
		opts.GracePeriodSeconds = &grace // the query overrides the body, as upstream
	}
	dryRun, err := parseDryRun(q)
	if err != nil {
		return nil, err
	}
	if len(opts.DryRun) > 0 {
		if dryRun, err = parseDryRun(map[string][]string{"dryRun": opts.DryRun}); err != nil {
			return nil, err
		}
	}
	return &registry.DeleteOptions{DeleteOptions: opts, DryRun: dryRun}, nil
}

// decodeDeleteOptions decodes a DELETE body by its Content-Type.
func decodeDeleteOptions(contentType string, body []byte) (*metav1.DeleteOptions, error) {
	mt, err := mediaType(contentType)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return &metav1.DeleteOptions{}, nil
	}
	switch mt {
	case "", mediaJSON:
		opts, err := api.DecodeDeleteOptions(body)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return opts, nil
	case mediaProtobuf:
		return decodeProtobufDeleteOptions(body)
	}
	return nil, unsupportedMedia(contentType, mediaJSON, mediaProtobuf)
}

// deleteOptionsCodec is built on first use, as api.Scheme is.
var deleteOptionsCodec = sync.OnceValue(func() *protobuf.Serializer {
	return protobuf.NewSerializer(api.Scheme(), api.Scheme())
})

func decodeProtobufDeleteOptions(body []byte) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	out, _, err := deleteOptionsCodec().Decode(body, nil, opts)
	if err != nil {
		return nil, badRequest("decode DeleteOptions: malformed protobuf body: %v", err)
	}
	o, ok := out.(*metav1.DeleteOptions)
	if !ok {
		return nil, badRequest("decode DeleteOptions: the protobuf body holds %T, want DeleteOptions", out)
	}
	return o, nil
}

// resolvePropagation lets the query's propagationPolicy and legacy
// orphanDependents override the body's, refuses what the apiserver
// refuses, and folds orphanDependents into the policy it means (true is
// Orphan, false Background): past this point only PropagationPolicy is read.
func resolvePropagation(opts *metav1.DeleteOptions, q url.Values) error {
	if v := q.Get("propagationPolicy"); v != "" {
		p := metav1.DeletionPropagation(v)
		opts.PropagationPolicy = &p
	}
	orphan, err := legacyOrphan(opts, q)
	if err != nil {
		return err
	}
	if err := checkPropagation(opts.PropagationPolicy, orphan != nil); err != nil {
		return err
	}
	if orphan != nil {
		p := metav1.DeletePropagationBackground
		if *orphan {
			p = metav1.DeletePropagationOrphan
		}
		opts.PropagationPolicy = &p
	}
	return nil
}

// legacyOrphan reads orphanDependents: the query's, else the body's.
func legacyOrphan(opts *metav1.DeleteOptions, q url.Values) (*bool, error) {
	if !q.Has("orphanDependents") {
		//lint:ignore SA1019 clients may still send it and the apiserver still honours it; resolvePropagation folds it into propagationPolicy.
		return opts.OrphanDependents, nil
	}
	orphan, err := boolParam(q, "orphanDependents")
	if err != nil {
		return nil, err
	}
	return &orphan, nil
}

// checkPropagation refuses an unknown policy, or a policy together with the
// legacy orphanDependents, as the apiserver does.
func checkPropagation(p *metav1.DeletionPropagation, legacyOrphan bool) error {
	if p == nil {
		return nil
	}
	if legacyOrphan {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "",
			field.ErrorList{field.Invalid(field.NewPath("propagationPolicy"), *p,
				"orphanDependents and deletionPropagation cannot be both set")})
	}
	switch *p {
	case metav1.DeletePropagationOrphan, metav1.DeletePropagationBackground, metav1.DeletePropagationForeground:
		return nil
	}
	return badRequest("propagationPolicy: Unsupported value: %q: supported values: \"Orphan\", \"Background\", \"Foreground\"", *p)
}
