package daemonset

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

// TestNewPodOnlyOnceTheOldIsGone: a node whose daemon pod is terminating
// gets no second one until the old pod is gone (a finalizer holds it here,
// as a slow node would).
func TestNewPodOnlyOnceTheOldIsGone(t *testing.T) {
	h := start(t)
	h.runAgent(0)
	h.addNode("pi-1", nil)
	ds := h.createDS(dsObject("logger", nil))
	old := h.waitNodes(ds, "pi-1")["pi-1"][0]
	controllertest.Edit(h.Env, podResource, "default", old.Name, func(o api.Object) { o.SetFinalizers([]string{"example.com/hold"}) })
	if err := h.Client.Delete(h.Ctx, podResource, "default", old.Name, controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	for _, o := range h.pods.List("default", nil) {
		if p := o.(*corev1.Pod); p.UID != old.UID {
			t.Fatalf("pod %s created while %s terminates on the node, want none until it is gone", p.Name, old.Name)
		}
	}
	controllertest.Edit(h.Env, podResource, "default", old.Name, func(o api.Object) { o.SetFinalizers(nil) })
	h.Eventually(waitFor, func() error {
		if got := h.podsByNode(ds)["pi-1"]; len(got) != 1 || got[0].UID == old.UID {
			return fmt.Errorf("pods on pi-1: %d, want one new", len(got))
		}
		return nil
	})
}
