package deployment

import (
	"encoding/json"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"

	"github.com/bramble-edge/bramble/api"
)

// undo does what `kubectl rollout undo --to-revision` does: a JSON patch
// replacing the template with the target ReplicaSet's (hash label removed,
// serialised from Go structs, so with "creationTimestamp": null and
// "resources": {}) and the annotations with the ReplicaSet's.
func (h *harness) undo(name string, to *appsv1.ReplicaSet) {
	h.T.Helper()
	d := h.get(name)
	tmpl := to.Spec.Template.DeepCopy()
	delete(tmpl.Labels, HashLabel)
	annotations := map[string]string{}
	for k := range notCopied {
		if v, ok := d.Annotations[k]; ok {
			annotations[k] = v
		}
	}
	for k, v := range to.Annotations {
		if !notCopied[k] {
			annotations[k] = v
		}
	}
	patch, err := json.Marshal([]map[string]any{
		{"op": "replace", "path": "/spec/template", "value": tmpl},
		{"op": "replace", "path": "/metadata/annotations", "value": annotations},
	})
	if err != nil {
		h.T.Fatalf("encode undo patch: %v", err)
	}
	if !strings.Contains(string(patch), `"creationTimestamp":null`) || !strings.Contains(string(patch), `"resources":{}`) {
		h.T.Fatalf("undo patch lacks kubectl's null/empty fields: %s", patch)
	}
	h.applyJSONPatch(d, patch)
}

func (h *harness) applyJSONPatch(d *appsv1.Deployment, patch []byte) {
	h.T.Helper()
	doc, err := api.Encode(d)
	if err != nil {
		h.T.Fatalf("encode deployment: %v", err)
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		h.T.Fatalf("decode patch: %v", err)
	}
	if doc, err = p.Apply(doc); err != nil {
		h.T.Fatalf("apply patch: %v", err)
	}
	obj, _, err := api.DecodeJSON(deploymentsRes, doc, false)
	if err != nil {
		h.T.Fatalf("decode patched deployment: %v", err)
	}
	if _, err := h.Client.Update(h.Ctx, obj); err != nil {
		h.T.Fatalf("update patched deployment: %v", err)
	}
}
