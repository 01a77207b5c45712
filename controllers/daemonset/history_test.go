package daemonset

import (
	"bytes"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/bramble-edge/bramble/controllers/history"
)

// revisions is the DaemonSet's revision numbers by name, from the cache.
func (h *harness) revisions(ds *appsv1.DaemonSet) map[string]int64 {
	out := map[string]int64{}
	for _, cr := range h.ctrl.history.Owned(ds) {
		out[cr.Name] = cr.Revision
	}
	return out
}

func (h *harness) waitRevisions(ds *appsv1.DaemonSet, want map[string]int64) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		if got := h.revisions(ds); fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("revisions %v, want %v", got, want)
		}
		return nil
	})
}

func TestRevisionsFollowTemplatesAndUndo(t *testing.T) {
	h := start(t)
	h.runAgent(0)
	h.addNode("pi-1", nil)
	ds := h.createDS(dsObject("logger", nil))
	h.waitStatus("logger", rolledOut(1))
	first := history.Name("logger", templateHash(&ds.Spec.Template))
	h.waitRevisions(ds, map[string]int64{first: 1})
	cr := h.ctrl.history.Owned(ds)[0]
	if cr.Labels["app"] != "logger" || cr.Labels[LabelRevisionHash] != templateHash(&ds.Spec.Template) {
		t.Errorf("revision labels %v, want the template's and the hash", cr.Labels)
	}
	if want, _ := history.Patch(&ds.Spec.Template); !bytes.Equal(cr.Data.Raw, want) {
		t.Errorf("revision data %s, want %s", cr.Data.Raw, want)
	}

	h.editDS("logger", func(d *appsv1.DaemonSet) { d.Spec.Template.Spec.Containers[0].Image = "registry.local/agent:2" })
	h.waitStatus("logger", rolledOut(1))
	second := history.Name("logger", templateHash(&h.getDS("logger").Spec.Template))
	h.waitRevisions(ds, map[string]int64{first: 1, second: 2})

	// kubectl rollout undo patches the first revision's template back.
	h.editDS("logger", func(d *appsv1.DaemonSet) { d.Spec.Template.Spec.Containers[0].Image = "registry.local/agent:1" })
	h.waitStatus("logger", rolledOut(1))
	h.waitRevisions(ds, map[string]int64{first: 3, second: 2})

	h.editDS("logger", func(d *appsv1.DaemonSet) {
		d.Spec.RevisionHistoryLimit = ptrInt32(0)
		d.Spec.Template.Spec.Containers[0].Image = "registry.local/agent:3"
	})
	h.waitStatus("logger", rolledOut(1))
	third := history.Name("logger", templateHash(&h.getDS("logger").Spec.Template))
	h.waitRevisions(ds, map[string]int64{third: 4})
}

func ptrInt32(v int32) *int32 { return &v }
