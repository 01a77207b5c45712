package openapi

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/api"
)

// TestGeneratedIsCurrent regenerates the schemas and compares them with
// the embedded ones: a change to k8s.io/api, to api.All() or to the
// generator must come with `go generate ./api/openapi`.
func TestGeneratedIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	out := filepath.Join(t.TempDir(), "definitions.json.gz")
	cmd := exec.Command("go", "run", "./gen", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, msg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, generated) {
		t.Fatal("definitions.json.gz is stale: run go generate ./api/openapi")
	}
}

func loadSchemas(t *testing.T, kinds []*api.Resource) map[string]map[string]any {
	t.Helper()
	d, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := d.Schemas(kinds)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for name, def := range raw {
		var m map[string]any
		if err := json.Unmarshal(def, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = m
	}
	return out
}

// TestEveryKindHasItsSchema checks every served kind and its list have a
// definition marked with their group, version and kind, and that every
// reference resolves.
func TestEveryKindHasItsSchema(t *testing.T) {
	defs := loadSchemas(t, api.All())
	for _, res := range api.All() {
		for name, kind := range map[string]string{KindName(res): res.Kind, ListName(res): res.Kind + "List"} {
			gvk, _ := json.Marshal(defs[name]["x-kubernetes-group-version-kind"])
			want := `[{"group":"` + res.Group + `","kind":"` + kind + `","version":"` + res.Version + `"}]`
			if string(gvk) != want {
				t.Errorf("%s: x-kubernetes-group-version-kind %s, want %s", name, gvk, want)
			}
		}
	}
	for name, def := range defs {
		b, _ := json.Marshal(def)
		for _, ref := range refs(b) {
			if defs[ref] == nil {
				t.Errorf("%s refers to %s, which is missing", name, ref)
			}
		}
	}
}

// path walks a definition through properties, items and references.
func path(t *testing.T, defs map[string]map[string]any, name string, steps ...string) map[string]any {
	t.Helper()
	s := defs[name]
	for _, step := range steps {
		switch step {
		case "[]":
			s, _ = s["items"].(map[string]any)
		case "->":
			ref, _ := s["$ref"].(string)
			if all, ok := s["allOf"].([]any); ok {
				ref, _ = all[0].(map[string]any)["$ref"].(string)
			}
			s = defs[strings.TrimPrefix(ref, RefPrefix)]
		default:
			props, _ := s["properties"].(map[string]any)
			s, _ = props[step].(map[string]any)
		}
		if s == nil {
			t.Fatalf("%s: no %s in %v", name, step, steps)
		}
	}
	return s
}

func TestSchemasCarryUpstreamsMarkers(t *testing.T) {
	defs := loadSchemas(t, api.All())
	strategy := path(t, defs, "io.k8s.api.apps.v1.Deployment", "spec", "->", "strategy")
	if strategy["description"] != "The deployment strategy to use to replace existing pods with new ones." {
		t.Errorf("strategy description %q", strategy["description"])
	}
	strategyType := path(t, defs, "io.k8s.api.apps.v1.DeploymentStrategy", "type")
	wantJSON(t, "strategy.type enum", strategyType["enum"], `["Recreate","RollingUpdate"]`)
	if d, _ := strategyType["description"].(string); !strings.Contains(d, "Possible enum values:\n - `\"Recreate\"` Kill all existing pods") {
		t.Errorf("strategy.type description lacks the enum values: %q", d)
	}
	surge := path(t, defs, "io.k8s.api.apps.v1.RollingUpdateDeployment", "maxSurge", "->")
	wantJSON(t, "IntOrString", surge, `{"description":"IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.","format":"int-or-string","oneOf":[{"type":"integer"},{"type":"string"}]}`)
	containers := path(t, defs, "io.k8s.api.core.v1.PodSpec", "containers")
	for k, want := range map[string]string{"x-kubernetes-list-type": `"map"`, "x-kubernetes-list-map-keys": `["name"]`,
		"x-kubernetes-patch-strategy": `"merge"`, "x-kubernetes-patch-merge-key": `"name"`} {
		wantJSON(t, "containers "+k, containers[k], want)
	}
	ports := path(t, defs, "io.k8s.api.core.v1.Container", "ports")
	wantJSON(t, "ports keys", ports["x-kubernetes-list-map-keys"], `["containerPort","protocol"]`)
	wantJSON(t, "port protocol default", path(t, defs, "io.k8s.api.core.v1.ContainerPort", "protocol")["default"], `"TCP"`)
	wantJSON(t, "Container required", defs["io.k8s.api.core.v1.Container"]["required"], `["name"]`)
	wantJSON(t, "LabelSelector map type", defs["io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector"]["x-kubernetes-map-type"], `"atomic"`)
	wantJSON(t, "creationTimestamp", path(t, defs, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "creationTimestamp", "->"),
		`{"description":"Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are provided for many of the factory methods that the time package offers.","format":"date-time","type":"string"}`)
	wantJSON(t, "secret data", path(t, defs, "io.k8s.api.core.v1.Secret", "data")["additionalProperties"], `{"format":"byte","type":"string"}`)
	wantJSON(t, "finalizers", path(t, defs, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "finalizers", "[]"), `{"default":"","type":"string"}`)
}

func wantJSON(t *testing.T, what string, got any, want string) {
	t.Helper()
	b, _ := json.Marshal(got)
	if string(b) != want {
		t.Errorf("%s: got %s, want %s", what, b, want)
	}
}

func TestTypeName(t *testing.T) {
	res, _ := api.ByKind("apps", "Deployment")
	if got := TypeName(reflect.TypeOf(res.New())); got != "io.k8s.api.apps.v1.Deployment" {
		t.Errorf("got %s", got)
	}
}
