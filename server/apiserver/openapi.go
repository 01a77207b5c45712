package apiserver

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/api/openapi"
	"github.com/bramble-edge/bramble/version"
)

// openAPIDocs are the OpenAPI v3 index and one document per group version,
// each with a PATCH operation per kind (kubectl checks it declares the
// fieldValidation parameter) and the schemas of the kinds with all they
// refer to (components.schemas, for kubectl explain).
// A group version's document is built on its first request and kept
// gzip'd; the index names each by a hash of what it is built from.
type openAPIDocs struct {
	index     *smallDoc
	indexETag string
	docs      map[string]*lazyDoc // "api/v1", "apis/apps/v1"
}

const openAPIPrefix = "/openapi/v3"

// openAPIFormat changes when what this file writes from the same kinds
// and schemas does, so that clients' cached documents are not reused.
const openAPIFormat = "bramble-openapi-2"

// buildOpenAPI lists the documents; one whose kinds did not change since
// prev keeps prev's (built or not).
func buildOpenAPI(k kindView, prev *openAPIDocs) (*openAPIDocs, error) {
	d := &openAPIDocs{docs: map[string]*lazyDoc{}}
	paths := map[string]map[string]string{}
	for _, gv := range k.GroupVersions() {
		key, kinds := gvPath(gv), kindsOf(k, gv)
		hash := docHash(kinds)
		doc := &lazyDoc{hash: hash, build: func() ([]byte, error) { return gvOpenAPI(kinds) },
			prebuilt: func() []byte { return prebuiltOpenAPI(hash) }}
		if prev != nil && prev.docs[key] != nil && prev.docs[key].hash == doc.hash {
			doc = prev.docs[key]
		}
		d.docs[key] = doc
		paths[key] = map[string]string{"serverRelativeURL": openAPIPrefix + "/" + key + "?hash=" + doc.hash}
	}
	index, err := json.Marshal(map[string]any{"paths": paths})
	if err != nil {
		return nil, fmt.Errorf("openapi index: %w", err)
	}
	d.index, d.indexETag = newSmallDoc(index), `"`+hashHex(index)+`"`
	return d, nil
}

func kindsOf(k kindView, gv schema.GroupVersion) []*api.Resource {
	var out []*api.Resource
	for _, res := range k.All() {
		if res.GroupVersion() == gv {
			out = append(out, res)
		}
	}
	return out
}

// docHash names a document built from kinds: their names, scope and own
// schemas, the generated schemas, and this file's format. Upper-case hex
// SHA-512, the form of the apiserver's hashes.
func docHash(kinds []*api.Resource) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s %s\n", openAPIFormat, openapi.Digest(), version.KubeGitVersion)
	for _, res := range kinds {
		fmt.Fprintf(&b, "%s %s %s %s %v %v %x\n", res.Group, res.Version, res.Kind, res.Name,
			res.Namespaced, res.Unstructured(), sha256.Sum256(res.Schema))
	}
	return hashHex(b.Bytes())
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

// gvOpenAPI builds the document of one group version's kinds.
func gvOpenAPI(kinds []*api.Resource) ([]byte, error) {
	defs, err := openapi.Load()
	if err != nil {
		return nil, err
	}
	schemas, err := defs.Schemas(kinds)
	if err != nil {
		return nil, err
	}
	paths := map[string]any{}
	for _, res := range kinds {
		paths[objectPath(res)] = map[string]any{"patch": patchOperation(res)}
	}
	return encodeDoc(map[string]any{
		"openapi":    "3.0.0",
		"info":       map[string]string{"title": "Kubernetes", "version": version.KubeGitVersion},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas},
	})
}

// encodeDoc writes compact JSON, leaving <, > and & of descriptions be.
func encodeDoc(doc any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode openapi: %w", err)
	}
	return b.Bytes(), nil
}

// serveOpenAPI answers /openapi/v3 and /openapi/v3/{group version}. A
// document asked for by its current hash is immutable and cached for a
// year; a stale hash is redirected to the current one.
func (a *API) serveOpenAPI(w http.ResponseWriter, r *http.Request, path string) {
	docs := a.docs.Load().openapi
	if path == openAPIPrefix {
		if notModified(w, r, docs.indexETag, false) {
			return
		}
		docs.index.write(w, r, mediaJSON)
		return
	}
	doc, ok := docs.docs[strings.TrimPrefix(path, openAPIPrefix+"/")]
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
	a.serveLazy(w, r, doc, `"`+doc.hash+`"`, hash != "", mediaJSON)
}

// serveLazy answers with a lazily built document, building it if needed.
func (a *API) serveLazy(w http.ResponseWriter, r *http.Request, doc *lazyDoc, etag string, immutable bool, contentType string) {
	if notModified(w, r, etag, immutable) {
		return
	}
	gz, err := doc.get()
	if err != nil {
		a.log.Error("build OpenAPI document", "path", r.URL.Path, "err", err.Error())
		a.writeError(w, r, err)
		return
	}
	writeGzipped(w, r, contentType, gz)
}

// notModified sets the caching headers and answers 304 when the client
// has the document already.
func notModified(w http.ResponseWriter, r *http.Request, etag string, immutable bool) bool {
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Vary", "Accept")
	if immutable {
		h.Set("Cache-Control", "public, immutable, max-age=31536000")
	} else {
		h.Set("Cache-Control", "no-cache, private")
	}
	if r.Header.Get("If-None-Match") != etag {
		return false
	}
	w.WriteHeader(http.StatusNotModified)
	return true
}
