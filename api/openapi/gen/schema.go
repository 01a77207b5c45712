package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// generator builds OpenAPI v3 schemas (components.schemas) for Go types:
// one definition per named struct type (and per type that describes its
// own JSON form), everything else inline. v2 holds the OpenAPI v2 form of
// the few definitions whose v2 form is not a mechanical rewrite of the v3
// one (v3 oneOf types).
type generator struct {
	src  *sources
	defs map[string]map[string]any
	v2   map[string]map[string]any
}

const refPrefix = "#/components/schemas/"

// Types that say how they are written in JSON (IntOrString, Quantity,
// Time, Duration) describe their own schema, as openapi-gen expects.
type openAPISchemaTyper interface {
	OpenAPISchemaType() []string
	OpenAPISchemaFormat() string
}

type openAPIOneOfTyper interface {
	OpenAPIV3OneOfTypes() []string
}

var (
	marshalerType   = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	timeType        = reflect.TypeOf(time.Time{})
)

// definitionName is the name upstream gives a Go type's definition: the
// package path with its domain reversed, dots for slashes, then the type
// ("k8s.io/api/apps/v1".Deployment -> io.k8s.api.apps.v1.Deployment).
func definitionName(t reflect.Type) string {
	parts := strings.Split(t.PkgPath(), "/")
	domain := strings.Split(parts[0], ".")
	for i, j := 0, len(domain)-1; i < j; i, j = i+1, j-1 {
		domain[i], domain[j] = domain[j], domain[i]
	}
	parts[0] = strings.Join(domain, ".")
	return strings.Join(parts, ".") + "." + t.Name()
}

// hasDefinition reports whether a type gets a definition of its own
// rather than an inline schema.
func hasDefinition(t reflect.Type) bool {
	if t.Name() == "" || t.PkgPath() == "" || t == timeType {
		return false
	}
	_, self := reflect.New(t).Interface().(openAPISchemaTyper)
	return t.Kind() == reflect.Struct || self
}

// ref defines t (once) and returns a reference to its definition.
func (g *generator) ref(t reflect.Type) (map[string]any, error) {
	name := definitionName(t)
	if _, ok := g.defs[name]; !ok {
		g.defs[name] = map[string]any{} // placeholder: types may refer to themselves
		def, err := g.define(t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		g.defs[name] = def
	}
	return map[string]any{"$ref": refPrefix + name}, nil
}

// define builds the definition of a named type.
func (g *generator) define(t reflect.Type) (map[string]any, error) {
	pkg, err := g.src.load(t.PkgPath())
	if err != nil {
		return nil, err
	}
	ts := pkg.types[t.Name()]
	if ts == nil {
		return nil, fmt.Errorf("no declaration of %s in the source of %s", t.Name(), t.PkgPath())
	}
	if def, ok := g.selfDescribed(t, ts); ok {
		return def, nil
	}
	if _, ok := reflect.PointerTo(t).MethodByName("OpenAPIDefinition"); ok {
		return nil, fmt.Errorf("types with an OpenAPIDefinition method are not supported")
	}
	def := map[string]any{"type": "object"}
	setDescription(def, ts.doc)
	if err := typeExtensions(def, tags(ts.doc)); err != nil {
		return nil, err
	}
	if reflect.PointerTo(t).Implements(marshalerType) {
		return def, hiddenFieldsOnly(t)
	}
	props, required := map[string]any{}, []string{}
	if err := g.members(t, props, &required); err != nil {
		return nil, err
	}
	if len(props) > 0 {
		def["properties"] = props
	}
	if len(required) > 0 {
		def["required"] = required
	}
	return def, nil
}

// selfDescribed is the definition of a type that describes its own
// schema; v3 documents write the types it may be as a oneOf.
func (g *generator) selfDescribed(t reflect.Type, ts *typeSource) (map[string]any, bool) {
	typer, ok := reflect.New(t).Interface().(openAPISchemaTyper)
	if !ok {
		return nil, false
	}
	v2 := map[string]any{}
	if types := typer.OpenAPISchemaType(); len(types) > 0 {
		v2["type"] = types[0]
	} // no types: any JSON value (apiextensions' JSON and JSONSchemaPropsOr*)
	setDescription(v2, ts.doc)
	if f := typer.OpenAPISchemaFormat(); f != "" {
		v2["format"] = f
	}
	oneOf, ok := typer.(openAPIOneOfTyper)
	if !ok {
		return v2, true
	}
	v3 := map[string]any{}
	for k, v := range v2 {
		v3[k] = v
	}
	delete(v3, "type")
	var alts []any
	for _, typ := range oneOf.OpenAPIV3OneOfTypes() {
		alts = append(alts, map[string]any{"type": typ})
	}
	v3["oneOf"] = alts
	g.v2[definitionName(t)] = v2
	return v3, true
}

// hiddenFieldsOnly accepts a struct that writes its own JSON only when
// none of its fields is visible to encoding/json (RawExtension, FieldsV1:
// free-form objects); any other would need a schema the source cannot
// give, so the generator stops rather than guess.
func hiddenFieldsOnly(t reflect.Type) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.IsExported() && f.Tag.Get("json") != "-" {
			return fmt.Errorf("writes its own JSON but has visible field %s and no OpenAPISchemaType", f.Name)
		}
	}
	return nil
}

func setDescription(s map[string]any, lines []string) {
	if d := description(lines); d != "" {
		s["description"] = d
	}
}
