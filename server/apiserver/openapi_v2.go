package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/version"
)

// kubectl 1.27 and 1.28 check fieldValidation support in the OpenAPI v2
// document, which they only read as protobuf; without it `kubectl apply`
// fails with a bare 404. The document carries the same minimum as the v3
// ones: a PATCH operation per kind with its GVK and the query parameters,
// and no definitions, so kubectl falls back to its compiled-in types for
// strategic merge patches.
const (
	openAPIV2Path      = "/openapi/v2"
	mediaOpenAPIV2Prot = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

type openAPIV2Doc struct {
	json, protobuf []byte
	etag           string
}

func buildOpenAPIV2(k kindView) (*openAPIV2Doc, error) {
	paths := map[string]any{}
	for _, res := range k.All() {
		paths[objectPath(res)] = map[string]any{"patch": patchOperationV2(res)}
	}
	doc := map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "Kubernetes", "version": version.KubeGitVersion},
		"paths":       paths,
		"definitions": map[string]any{},
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi v2: %w", err)
	}
	parsed, err := openapiv2.ParseDocument(js)
	if err != nil {
		return nil, fmt.Errorf("openapi v2: %w", err)
	}
	pb, err := proto.Marshal(parsed)
	if err != nil {
		return nil, fmt.Errorf("openapi v2 protobuf: %w", err)
	}
	return &openAPIV2Doc{json: js, protobuf: pb, etag: `"` + hashHex(pb) + `"`}, nil
}

func patchOperationV2(res *api.Resource) map[string]any {
	query := func(name, typ string) map[string]any {
		return map[string]any{"name": name, "in": "query", "type": typ, "uniqueItems": true}
	}
	return map[string]any{
		"operationId": "patch" + res.Kind,
		"consumes": []string{"application/json-patch+json", "application/merge-patch+json",
			"application/strategic-merge-patch+json", "application/apply-patch+yaml"},
		"produces": []string{"application/json"},
		"parameters": []any{query("dryRun", "string"), query("fieldManager", "string"),
			query("fieldValidation", "string"), query("force", "boolean")},
		"responses":                       map[string]any{"200": map[string]string{"description": "OK"}},
		"x-kubernetes-action":             "patch",
		"x-kubernetes-group-version-kind": map[string]string{"group": res.Group, "version": res.Version, "kind": res.Kind},
	}
}

// serveOpenAPIV2 answers /openapi/v2: protobuf when Accept asks for it
// (kubectl does), JSON otherwise.
func (a *API) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	doc := a.docs.Load().openapiV2
	h := w.Header()
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "no-cache, private")
	body, media, etag := doc.json, mediaJSON, `"j`+doc.etag[1:]
	if acceptsOpenAPIV2Protobuf(r.Header.Get("Accept")) {
		// The apiserver answers this Accept with application/octet-stream;
		// clients cannot parse the "@" media type back either.
		body, media, etag = doc.protobuf, "application/octet-stream", doc.etag
	}
	h.Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeRaw(w, http.StatusOK, media, body)
}

// acceptsOpenAPIV2Protobuf compares by hand: the "@" in the media type is
// not a valid token character, so mime.ParseMediaType refuses it.
func acceptsOpenAPIV2Protobuf(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		media, _, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(media), mediaOpenAPIV2Prot) {
			return true
		}
	}
	return false
}
