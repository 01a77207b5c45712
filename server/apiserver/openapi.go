package apiserver

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/version"
)

// openAPIDocs are the OpenAPI v3 index and one document per group version.
// The documents hold only what kubectl looks for: a PATCH operation per
// kind declaring the fieldValidation parameter (so kubectl leaves
// validation to the server) and no requestBody (so it builds strategic
// merge patches from its compiled-in types).
type openAPIDocs struct {
	index     []byte
	indexETag string
	docs      map[string]openAPIDoc // "api/v1", "apis/apps/v1"
}

type openAPIDoc struct {
	body []byte
	hash string // upper-case hex SHA-512 of body, as the apiserver does
}

const openAPIPrefix = "/openapi/v3"

func buildOpenAPI(k kindView) (*openAPIDocs, error) {
	d := &openAPIDocs{docs: map[string]openAPIDoc{}}
	paths := map[string]map[string]string{}
	for _, gv := range k.GroupVersions() {
		key := gvPath(gv)
		body, err := json.Marshal(gvOpenAPI(k, gv))
		if err != nil {
			return nil, fmt.Errorf("openapi %s: %w", gv, err)
		}
		doc := openAPIDoc{body: body, hash: hashHex(body)}
		d.docs[key] = doc
		paths[key] = map[string]string{"serverRelativeURL": openAPIPrefix + "/" + key + "?hash=" + doc.hash}
	}
	var err error
	if d.index, err = json.Marshal(map[string]any{"paths": paths}); err != nil {
		return nil, fmt.Errorf("openapi index: %w", err)
	}
	d.indexETag = `"` + hashHex(d.index) + `"`
	return d, nil
}

func hashHex(b []byte) string {
	sum := sha512.Sum512(b)
	return strings.ToUpper(hex.EncodeToString(sum[:]))
}

// gvPath is a group version's URL path without the leading slash.
func gvPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

func gvOpenAPI(k kindView, gv schema.GroupVersion) map[string]any {
	paths := map[string]any{}
	for _, res := range k.All() {
		if res.GroupVersion() == gv {
			paths[objectPath(res)] = map[string]any{"patch": patchOperation(res)}
		}
	}
	return map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "Kubernetes", "version": version.KubeGitVersion},
		"paths":      paths,
		"components": map[string]any{"schemas": map[string]any{}},
	}
}

func objectPath(res *api.Resource) string {
	p := "/" + gvPath(res.GroupVersion()) + "/"
	if res.Namespaced {
		p += "namespaces/{namespace}/"
	}
	return p + res.Name + "/{name}"
}

func patchOperation(res *api.Resource) map[string]any {
	params := []map[string]any{
		param("name", "path", true), param("dryRun", "query", false), param("fieldManager", "query", false),
		param("fieldValidation", "query", false), param("force", "query", false),
	}
	if res.Namespaced {
		params = append(params, param("namespace", "path", true))
	}
	return map[string]any{
		"operationId":                     "patch" + res.Kind,
		"x-kubernetes-action":             "patch",
		"x-kubernetes-group-version-kind": map[string]string{"group": res.Group, "version": res.Version, "kind": res.Kind},
		"parameters":                      params,
		"responses":                       map[string]any{"200": map[string]string{"description": "OK"}, "201": map[string]string{"description": "Created"}},
	}
}

func param(name, in string, required bool) map[string]any {
	p := map[string]any{"name": name, "in": in, "schema": map[string]string{"type": "string"}}
	if required {
		p["required"] = true
	}
	return p
}

// serveOpenAPI answers /openapi/v3 and /openapi/v3/{group version}. A
// document asked for by its current hash is immutable and cached for a
// year; a stale hash is redirected to the current one.
func (a *API) serveOpenAPI(w http.ResponseWriter, r *http.Request, path string) {
	if path == openAPIPrefix {
		serveCached(w, r, a.docs.Load().openapi.index, a.docs.Load().openapi.indexETag, false)
		return
	}
	doc, ok := a.docs.Load().openapi.docs[strings.TrimPrefix(path, openAPIPrefix+"/")]
	if !ok {
		a.writeError(w, r, notFoundPath())
		return
	}
	hash := r.URL.Query().Get("hash")
	if hash != "" && hash != doc.hash {
		w.Header().Set("Cache-Control", "no-cache, private")
		http.Redirect(w, r, path+"?hash="+doc.hash, http.StatusMovedPermanently)
		return
	}
	serveCached(w, r, doc.body, `"`+doc.hash+`"`, hash != "")
}

func serveCached(w http.ResponseWriter, r *http.Request, body []byte, etag string, immutable bool) {
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Vary", "Accept")
	if immutable {
		h.Set("Cache-Control", "public, immutable, max-age=31536000")
	} else {
		h.Set("Cache-Control", "no-cache, private")
	}
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeRaw(w, http.StatusOK, mediaJSON, body)
}
