// Command gen writes the OpenAPI schemas of bramble's built-in kinds
// (api/openapi/definitions.json.gz) from the Go types of k8s.io/api and
// k8s.io/apimachinery and the doc comments in their source, as the module
// cache holds it at the versions go.mod selects. It covers every kind in
// api.All(), its list, and everything they refer to, so a kind added there
// needs only a `go generate ./api/openapi`.
//
// The output is gzip'd JSON: {"definitions": {name: v3 schema},
// "v2": {name: v2 schema}}, where "v2" holds only the definitions whose
// OpenAPI v2 form differs from the v3 one by more than how references
// are written.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func main() {
	out := flag.String("o", "definitions.json.gz", "output file")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "openapi gen:", err)
		os.Exit(1)
	}
}

// roots are the types the documents need: every served kind and its
// list, the Scale of the scale subresource, and the Patch type PATCH
// operations name as their request body.
func roots() []reflect.Type {
	var out []reflect.Type
	for _, res := range append(append([]*api.Resource(nil), api.All()...), api.ScaleResource) {
		out = append(out, reflect.TypeOf(res.New()), reflect.TypeOf(res.NewList()))
	}
	return append(out, reflect.TypeOf(metav1.Patch{}))
}

func run(out string) error {
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	g := &generator{src: &sources{dir: dir, pkgs: map[string]*pkgSource{}},
		defs: map[string]map[string]any{}, v2: map[string]map[string]any{}}
	for _, t := range roots() {
		if _, err := g.ref(deref(t)); err != nil {
			return err
		}
	}
	data, err := encode(g)
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o644)
}

// encode writes the definitions as compact JSON (map keys sorted, so the
// output only changes when the schemas do), gzip'd.
func encode(g *generator) ([]byte, error) {
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"definitions": g.defs, "v2": g.v2}); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(js.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
