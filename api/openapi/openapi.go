// Package openapi holds the OpenAPI schemas of the kinds bramble serves and
// picks the ones a set of kinds needs. The schemas of the built-in kinds
// are generated at build time from the Go types of k8s.io/api and their
// doc comments (gen/, run by `go generate ./api/openapi`) and embedded
// gzip'd; nothing is decoded until a caller asks (Load), so a server that
// never serves OpenAPI or applies server-side never pays for them. Kinds
// added at run time bring their own schema (api.Resource.Schema) or get a
// permissive one.
//
// The server uses them three ways: the OpenAPI v3 document of each group
// version (components.schemas, as upstream), the OpenAPI v2 document, and
// the typed merge of server-side apply (list types and map keys).
package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed" // the generated schemas
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/bramble-edge/bramble/api"
)

//go:generate go run ./gen -o definitions.json.gz

//go:embed definitions.json.gz
var generated []byte

// RefPrefix starts every reference between v3 component schemas.
const RefPrefix = "#/components/schemas/"

// Definitions are the generated schemas, decoded: the OpenAPI v3 component
// schemas by name, and the OpenAPI v2 form of the few whose v2 form is not
// a rewrite of the v3 one.
type Definitions struct {
	v3 map[string]json.RawMessage
	v2 map[string]json.RawMessage
}

// Load decodes the generated schemas. Each call decodes afresh: callers
// keep what they build from them, not the definitions themselves (their
// schemas are slices of one inflated buffer, which a kept schema would
// keep whole).
func Load() (*Definitions, error) {
	zr, err := gzip.NewReader(bytes.NewReader(generated))
	if err != nil {
		return nil, fmt.Errorf("openapi definitions: %w", err)
	}
	var buf bytes.Buffer
	buf.Grow(inflatedSize(generated) + bytes.MinRead)
	if _, err := buf.ReadFrom(zr); err != nil {
		return nil, fmt.Errorf("openapi definitions: %w", err)
	}
	js := buf.Bytes()
	doc, err := members(js)
	if err != nil {
		return nil, fmt.Errorf("openapi definitions: %w", err)
	}
	v3, err := members(doc["definitions"])
	if err != nil {
		return nil, fmt.Errorf("openapi definitions: %w", err)
	}
	v2, err := members(doc["v2"])
	if err != nil {
		return nil, fmt.Errorf("openapi v2 definitions: %w", err)
	}
	return &Definitions{v3: v3, v2: v2}, nil
}

// inflatedSize is the size a gzip member says its data has (its last four
// bytes, little-endian), so that inflating it reads into one buffer.
func inflatedSize(gz []byte) int {
	if len(gz) < 4 {
		return 0
	}
	return int(binary.LittleEndian.Uint32(gz[len(gz)-4:]))
}

var digest = sync.OnceValue(func() string {
	sum := sha256.Sum256(generated)
	return hex.EncodeToString(sum[:])
})

// Digest identifies the generated schemas: documents built from them
// change only when it or the kinds do.
func Digest() string { return digest() }

// TypeName is the definition name of a Go type, as upstream names them:
// the package path with its domain reversed and dots for slashes, then the
// type ("io.k8s.api.apps.v1.Deployment").
func TypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	parts := strings.Split(t.PkgPath(), "/")
	parts[0] = reverseDomain(parts[0])
	return strings.Join(parts, ".") + "." + t.Name()
}

func reverseDomain(d string) string {
	labels := strings.Split(d, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	return strings.Join(labels, ".")
}

// KindName is the definition name of a kind's objects: its Go type's for
// built-in kinds, the reversed group, version and kind for kinds added at
// run time ("dev.bramble.example.v1.Gadget"), as upstream names a custom
// resource's.
func KindName(res *api.Resource) string {
	if res.Unstructured() {
		return strings.TrimPrefix(reverseDomain(res.Group)+"."+res.Version+"."+res.Kind, ".")
	}
	return TypeName(reflect.TypeOf(res.New()))
}

// ListName is the definition name of a kind's lists.
func ListName(res *api.Resource) string {
	if res.Unstructured() {
		return KindName(res) + "List"
	}
	return TypeName(reflect.TypeOf(res.NewList()))
}
