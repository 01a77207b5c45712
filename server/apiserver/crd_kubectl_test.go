//go:build kubectl

package apiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	widgetOK = `apiVersion: demo.bramble.dev/v1
kind: Widget
metadata: {name: w1}
spec: {size: 3, label: abc}
`
	widgetTooBig = `apiVersion: demo.bramble.dev/v1
kind: Widget
metadata: {name: w2}
spec: {size: 30}
`
	widgetUnknown = `apiVersion: demo.bramble.dev/v1
kind: Widget
metadata: {name: w3}
spec: {size: 2, bogus: 1}
`
)

// TestKubectlCustomResourceDefinition drives a CRD with a schema with real
// kubectl: established for kubectl wait, objects validated (422 naming the
// field), defaulted, pruned, printed with the printer columns, status
// writes leaving the generation, explain showing the schema's
// descriptions, short names, the "all" category, a second version, scale,
// field selectors, and deleting the CRD taking its objects.
func TestKubectlCustomResourceDefinition(t *testing.T) {
	crd, err := os.ReadFile(filepath.Join("..", "registry", "testdata", "crd_widgets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{"kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.27", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			k := newKubectlEnv(t)
			k.bin = bin
			wantContains(t, k.ok(t, string(crd), "apply", "-f", "-"), "widgets.demo.bramble.dev created")
			wantContains(t, k.ok(t, "", "wait", "--for", "condition=established", "crd/widgets.demo.bramble.dev", "--timeout=10s"), "condition met")
			wantContains(t, k.ok(t, widgetOK, "apply", "-f", "-"), "widget.demo.bramble.dev/w1 created")
			out, err := k.run(t, widgetTooBig, "apply", "-f", "-")
			if err == nil {
				t.Fatalf("a widget of size 30 was accepted: %s", out)
			}
			wantContains(t, out, `The Widget "w2" is invalid: spec.size: Invalid value: 30: spec.size in body should be less than or equal to 10`)
			out, err = k.run(t, widgetUnknown, "apply", "-f", "-")
			if err == nil {
				t.Fatalf("an unknown field passed strict field validation: %s", out)
			}
			wantContains(t, out, `unknown field "spec.bogus"`)
			k.ok(t, widgetUnknown, "apply", "--validate=false", "-f", "-")
			if got := k.ok(t, "", "get", "wd", "w3", "-o", "jsonpath={.spec}"); got != `{"color":"green","replicas":1,"size":2}` {
				t.Fatalf("w3 spec: got %s, want defaults set and spec.bogus pruned", got)
			}
			wantContains(t, k.ok(t, "", "get", "widgets"), "NAME", "SIZE", "COLOR", "PHASE", "AGE", "w1", "3", "green")
			wantContains(t, k.ok(t, "", "get", "all"), "widget.demo.bramble.dev/w1")
			k.ok(t, "", "patch", "wd", "w1", "--subresource=status", "--type=merge", "-p", `{"status":{"phase":"Ready"}}`)
			if got := k.ok(t, "", "get", "wd", "w1", "-o", "jsonpath={.metadata.generation} {.status.phase}"); got != "1 Ready" {
				t.Fatalf("after a status patch: got %q, want generation 1 and phase Ready", got)
			}
			k.ok(t, "", "scale", "wd", "w1", "--replicas=4")
			if got := k.ok(t, "", "get", "wd", "w1", "-o", "jsonpath={.metadata.generation} {.spec.replicas}"); got != "2 4" {
				t.Fatalf("after scale: got %q, want generation 2 with 4 replicas", got)
			}
			wantContains(t, k.ok(t, "", "explain", "widget.spec.size"), "Size of the widget in units.")
			wantContains(t, k.ok(t, "", "explain", "widgets.spec"), "WidgetSpec is what the widget should be.", "Paint colour.")
			if got := k.ok(t, "", "get", "widgets.v1beta1.demo.bramble.dev", "w1", "-o", "jsonpath={.apiVersion}"); got != "demo.bramble.dev/v1beta1" {
				t.Fatalf("w1 read as v1beta1: got apiVersion %q", got)
			}
			wantContains(t, k.ok(t, "", "get", "wd", "--field-selector", "spec.color=green", "-o", "name"), "widget.demo.bramble.dev/w1")
			wantContains(t, k.ok(t, "", "delete", "crd", "widgets.demo.bramble.dev"), "deleted")
			out, _ = k.run(t, "", "get", "widgets.demo.bramble.dev")
			wantContains(t, out, "the server doesn't have a resource type")
			withCEL := strings.Replace(string(crd), "            required: [size]\n",
				"            required: [size]\n            x-kubernetes-validations: [{rule: 'self.size > 0'}]\n", 1)
			wantContains(t, k.ok(t, withCEL, "apply", "-f", "-"), "created",
				"Warning: spec.versions[v1]: x-kubernetes-validations (CEL) rules are stored but not evaluated")
			k.ok(t, "", "wait", "--for", "condition=established", "crd/widgets.demo.bramble.dev", "--timeout=10s")
			wantContains(t, k.ok(t, "", "get", "widgets.demo.bramble.dev"), "No resources found")
		})
	}
}
