package apiserver

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/api/openapi"
)

// The OpenAPI documents describe one operation per kind, PATCH on an
// object, as upstream writes it: kubectl reads from it whether the server
// validates fields (the fieldValidation parameter) and which patch types
// the kind takes. Strategic merge patches only work on built-in kinds:
// for a kind added at run time kubectl must send a merge patch instead,
// as for upstream's custom resources.

func objectPath(res *api.Resource) string {
	p := "/" + gvPath(res.GroupVersion()) + "/"
	if res.Namespaced {
		p += "namespaces/{namespace}/"
	}
	return p + res.Name + "/{name}"
}

// patchTypes are the content types a kind's PATCH takes.
func patchTypes(res *api.Resource) []string {
	out := []string{string(types.ApplyPatchType), string(types.JSONPatchType), string(types.MergePatchType)}
	if !res.Unstructured() {
		out = append(out, string(types.StrategicMergePatchType))
	}
	return out
}

func gvkExtension(res *api.Resource) map[string]string {
	return map[string]string{"group": res.Group, "version": res.Version, "kind": res.Kind}
}

// patchOperation is the v3 PATCH operation of a kind. Unlike upstream's
// it declares no requestBody: kubectl then takes the strategic merge
// metadata of built-in kinds from the v2 document (the same schemas) or
// its compiled-in types, and never tries one for a kind added at run time.
func patchOperation(res *api.Resource) map[string]any {
	params := []map[string]any{param("name", "path", "string", true)}
	if res.Namespaced {
		params = append(params, param("namespace", "path", "string", true))
	}
	params = append(params, param("dryRun", "query", "string", false), param("fieldManager", "query", "string", false),
		param("fieldValidation", "query", "string", false), param("force", "query", "boolean", false))
	answer := func(description string) map[string]any {
		return map[string]any{"description": description, "content": map[string]any{
			"application/json": map[string]any{"schema": map[string]string{"$ref": openapi.RefPrefix + openapi.KindName(res)}}}}
	}
	return map[string]any{
		"operationId":                     "patch" + res.Kind,
		"x-kubernetes-action":             "patch",
		"x-kubernetes-group-version-kind": gvkExtension(res),
		"parameters":                      params,
		"responses":                       map[string]any{"200": answer("OK"), "201": answer("Created")},
	}
}

func param(name, in, typ string, required bool) map[string]any {
	p := map[string]any{"name": name, "in": in, "schema": map[string]string{"type": typ}, "uniqueItems": true}
	if required {
		p["required"] = true
	}
	return p
}

// patchOperationV2 is the v2 PATCH operation of a kind.
func patchOperationV2(res *api.Resource) map[string]any {
	pathParam := func(name string) map[string]any {
		return map[string]any{"name": name, "in": "path", "required": true, "type": "string", "uniqueItems": true}
	}
	query := func(name, typ string) map[string]any {
		return map[string]any{"name": name, "in": "query", "type": typ, "uniqueItems": true}
	}
	params := []any{
		map[string]any{"name": "body", "in": "body", "required": true,
			"schema": map[string]string{"$ref": openapi.V2RefPrefix + openapi.PatchName}},
		pathParam("name"),
	}
	if res.Namespaced {
		params = append(params, pathParam("namespace"))
	}
	params = append(params, query("dryRun", "string"), query("fieldManager", "string"),
		query("fieldValidation", "string"), query("force", "boolean"))
	return map[string]any{
		"operationId": "patch" + res.Kind,
		"consumes":    patchTypes(res),
		"produces":    []string{"application/json"},
		"parameters":  params,
		"responses": map[string]any{"200": map[string]any{"description": "OK",
			"schema": map[string]string{"$ref": openapi.V2RefPrefix + openapi.KindName(res)}}},
		"x-kubernetes-action":             "patch",
		"x-kubernetes-group-version-kind": gvkExtension(res),
	}
}
