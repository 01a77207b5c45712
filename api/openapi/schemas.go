package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/bramble-edge/bramble/api"
)

// PatchName is the definition PATCH operations name as their body.
const PatchName = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"

// Schemas returns the v3 component schemas that kinds need: the
// definition of each kind and of its list, marked with their
// x-kubernetes-group-version-kind, the generated definitions named in
// also, and every definition they refer to.
func (d *Definitions) Schemas(kinds []*api.Resource, also ...string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for _, name := range also {
		if out[name] = d.v3[name]; out[name] == nil {
			return nil, fmt.Errorf("openapi: no definition %s", name)
		}
	}
	gvks := map[string][]any{}
	for _, res := range kinds {
		for name, def := range d.kindSchemas(res) {
			if def == nil {
				return nil, fmt.Errorf("openapi: no schema %s for %s %s (run go generate ./api/openapi)", name, res.APIVersion(), res.Kind)
			}
			out[name] = def
		}
		gv := map[string]string{"group": res.Group, "version": res.Version}
		gvks[KindName(res)] = append(gvks[KindName(res)], withKind(gv, res.Kind))
		gvks[ListName(res)] = append(gvks[ListName(res)], withKind(gv, res.Kind+"List"))
	}
	for name, list := range gvks {
		def, err := withExtension(out[name], "x-kubernetes-group-version-kind", list)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", name, err)
		}
		out[name] = def
	}
	return out, d.addReferred(out)
}

func withKind(gv map[string]string, kind string) map[string]string {
	return map[string]string{"group": gv["group"], "version": gv["version"], "kind": kind}
}

// kindSchemas are the kind's own definition and its list's, nil where
// the generated definitions lack one.
func (d *Definitions) kindSchemas(res *api.Resource) map[string]json.RawMessage {
	if !res.Unstructured() {
		return map[string]json.RawMessage{KindName(res): d.v3[KindName(res)], ListName(res): d.v3[ListName(res)]}
	}
	kind := json.RawMessage(res.Schema)
	if len(kind) == 0 {
		kind = permissive
	}
	list := fmt.Sprintf(`{"description":"%sList is a list of %s.","type":"object","required":["items"],"properties":{`+
		`"apiVersion":{"type":"string"},"kind":{"type":"string"},`+
		`"items":{"type":"array","items":{"$ref":"%s%s"}},`+
		`"metadata":{"$ref":"%sio.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}}}`,
		res.Kind, res.Kind, RefPrefix, KindName(res), RefPrefix)
	return map[string]json.RawMessage{KindName(res): kind, ListName(res): json.RawMessage(list)}
}

// permissive is the schema of a kind added at run time without one: any
// fields, with the metadata every object has.
var permissive = json.RawMessage(`{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{` +
	`"apiVersion":{"type":"string"},"kind":{"type":"string"},` +
	`"metadata":{"$ref":"` + RefPrefix + `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}}`)

// withExtension re-encodes a schema with one more field, compactly (so
// references keep the form addReferred looks for).
func withExtension(def json.RawMessage, key string, value any) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(def, &m); err != nil {
		return nil, err
	}
	m[key] = value
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// addReferred adds to defs every definition they refer to, transitively.
func (d *Definitions) addReferred(defs map[string]json.RawMessage) error {
	var todo []string
	for name := range defs {
		todo = append(todo, name)
	}
	sort.Strings(todo)
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, ref := range refs(defs[name]) {
			if _, ok := defs[ref]; ok {
				continue
			}
			def, ok := d.v3[ref]
			if !ok {
				return fmt.Errorf("openapi: %s refers to %s, which is not defined", name, ref)
			}
			defs[ref] = def
			todo = append(todo, ref)
		}
	}
	return nil
}

var refKey = []byte(`"$ref":"` + RefPrefix)

// refs lists the definitions a compact JSON schema refers to.
func refs(def json.RawMessage) []string {
	var out []string
	for {
		i := bytes.Index(def, refKey)
		if i < 0 {
			return out
		}
		def = def[i+len(refKey):]
		end := bytes.IndexByte(def, '"')
		if end < 0 {
			return out
		}
		out = append(out, string(def[:end]))
		def = def[end:]
	}
}
