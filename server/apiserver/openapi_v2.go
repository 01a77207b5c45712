package apiserver

import (
	"fmt"
	"net/http"
	"strings"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/api/openapi"
	"github.com/bramble-edge/bramble/version"
)

// The OpenAPI v2 document describes every kind at once: a PATCH operation
// per kind (kubectl 1.27 and 1.28 check fieldValidation support there)
// and the definitions of all kinds (kubectl builds strategic merge
// patches from them when the v3 documents do not serve, and explains
// fields from them with --output=plaintext-openapiv2). kubectl reads it
// only as protobuf. Both forms are built on first request and kept
// gzip'd.
const (
	openAPIV2Path      = "/openapi/v2"
	mediaOpenAPIV2Prot = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
)

type openAPIV2Doc struct {
	json, protobuf *lazyDoc
}

func buildOpenAPIV2(k kindView, prev *openAPIV2Doc) *openAPIV2Doc {
	hash := docHash(k.All())
	if prev != nil && prev.json.hash == hash {
		return prev
	}
	kinds := k.All()
	return &openAPIV2Doc{
		json: &lazyDoc{hash: hash, build: func() ([]byte, error) { return openAPIV2JSON(kinds) }},
		protobuf: &lazyDoc{hash: hash, build: func() ([]byte, error) {
			js, err := openAPIV2JSON(kinds)
			if err != nil {
				return nil, err
			}
			return openAPIV2Protobuf(js)
		}},
	}
}

func openAPIV2JSON(kinds []*api.Resource) ([]byte, error) {
	defs, err := openapi.Load()
	if err != nil {
		return nil, err
	}
	v3, err := defs.Schemas(kinds, openapi.PatchName)
	if err != nil {
		return nil, err
	}
	definitions, err := defs.V2(v3)
	if err != nil {
		return nil, err
	}
	paths := map[string]any{}
	for _, res := range kinds {
		paths[objectPath(res)] = map[string]any{"patch": patchOperationV2(res)}
	}
	return encodeDoc(map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "Kubernetes", "version": version.KubeGitVersion},
		"paths":       paths,
		"definitions": definitions,
	})
}

// openAPIV2Protobuf is the gnostic protobuf form of a v2 JSON document.
func openAPIV2Protobuf(js []byte) ([]byte, error) {
	parsed, err := openapiv2.ParseDocument(js)
	if err != nil {
		return nil, fmt.Errorf("openapi v2: %w", err)
	}
	pb, err := proto.Marshal(parsed)
	if err != nil {
		return nil, fmt.Errorf("openapi v2 protobuf: %w", err)
	}
	return pb, nil
}

// serveOpenAPIV2 answers /openapi/v2: protobuf when Accept asks for it
// (kubectl does), JSON otherwise.
func (a *API) serveOpenAPIV2(w http.ResponseWriter, r *http.Request) {
	doc := a.docs.Load().openapiV2
	if acceptsOpenAPIV2Protobuf(r.Header.Get("Accept")) {
		// The apiserver answers this Accept with application/octet-stream;
		// clients cannot parse the "@" media type back either.
		a.serveLazy(w, r, doc.protobuf, `"`+doc.protobuf.hash+`"`, false, "application/octet-stream")
		return
	}
	a.serveLazy(w, r, doc.json, `"j`+doc.json.hash+`"`, false, mediaJSON)
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
