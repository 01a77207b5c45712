package apiserver

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
)

// kindView is what the documents are built from: the served kinds.
type kindView interface {
	All() []*api.Resource
	GroupVersions() []schema.GroupVersion
}

// documents are discovery and OpenAPI, made once per change of the served
// kinds and swapped in whole, so a request never sees half of one (the
// OpenAPI documents themselves are built on their first request).
type documents struct {
	gen       uint64 // the Kinds generation they were built from
	discovery *discoveryDocs
	openapi   *openAPIDocs
	openapiV2 *openAPIV2Doc
}

// buildDocuments encodes discovery and lists the OpenAPI documents, which
// are built on their first request; those whose kinds are the same as in
// prev (nil at start) are taken over, built or not.
func buildDocuments(k kindView, gen uint64, prev *documents) (*documents, error) {
	d := &documents{gen: gen}
	var err error
	if d.discovery, err = buildDiscovery(k); err != nil {
		return nil, err
	}
	var prevV3 *openAPIDocs
	var prevV2 *openAPIV2Doc
	if prev != nil {
		prevV3, prevV2 = prev.openapi, prev.openapiV2
	}
	if d.openapi, err = buildOpenAPI(k, prevV3); err != nil {
		return nil, err
	}
	d.openapiV2 = buildOpenAPIV2(k, prevV2)
	return d, nil
}

// rebuildDocuments makes the documents current after the kinds changed.
// Concurrent rebuilds keep the newest generation.
func (a *API) rebuildDocuments() {
	kinds := a.reg.Kinds()
	gen := kinds.Generation()
	d, err := buildDocuments(kinds, gen, a.docs.Load())
	if err != nil {
		a.log.Error("rebuild discovery and OpenAPI", "err", fmt.Sprint(err))
		return
	}
	for {
		old := a.docs.Load()
		if old != nil && old.gen >= gen {
			return
		}
		if a.docs.CompareAndSwap(old, d) {
			return
		}
	}
}
