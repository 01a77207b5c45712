package api

import (
	"sort"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rootKept are the fields of an object (root or embedded resource) that
// pruning never removes: the type fields and metadata.
var rootKept = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// prune removes the fields the schema does not specify (unless it keeps
// unknown fields there) and returns their paths, sorted, as
// unknown-field messages name them.
func (n *schemaNode) prune(v any, p *field.Path, root bool, out []string) []string {
	switch x := v.(type) {
	case map[string]any:
		return n.pruneObject(x, p, root || n.s.XEmbeddedResource, out)
	case []any:
		if n.items != nil {
			for i, e := range x {
				out = n.items.prune(e, p.Index(i), false, out)
			}
		}
	}
	return out
}

func (n *schemaNode) pruneObject(m map[string]any, p *field.Path, resource bool, out []string) []string {
	keep := n.keepsUnknown()
	var dropped []string
	for k, v := range m {
		if child, ok := n.properties[k]; ok {
			out = child.prune(v, p.Child(k), false, out)
			continue
		}
		switch {
		case n.additional != nil:
			out = n.additional.prune(v, p.Key(k), false, out)
		case resource && rootKept[k], keep:
		default:
			dropped = append(dropped, k)
		}
	}
	sort.Strings(dropped)
	for _, k := range dropped {
		delete(m, k)
		out = append(out, p.Child(k).String())
	}
	return out
}

// applyDefaults sets the schema's defaults on missing fields (and on
// nulls of fields that are not nullable; other such nulls are dropped),
// on the way down, so that a defaulted object gets its own fields'
// defaults too.
func (n *schemaNode) applyDefaults(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range n.properties {
			cur, ok := x[k]
			nullDropped := ok && cur == nil && !child.s.Nullable
			switch {
			case (!ok || nullDropped) && child.hasDefault:
				x[k] = runtime.DeepCopyJSONValue(child.def)
			case nullDropped:
				delete(x, k) // upstream prunes nulls a field may not hold
			}
			if val, ok := x[k]; ok {
				child.applyDefaults(val)
			}
		}
		if n.additional != nil {
			for _, val := range x {
				n.additional.applyDefaults(val)
			}
		}
	case []any:
		if n.items != nil {
			for _, e := range x {
				n.items.applyDefaults(e)
			}
		}
	}
}
