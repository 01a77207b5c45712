package nodestatus_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/nodestatus"
)

// TestHeldBackPodGetsAReasonAndAnEvent (issue 14, defect 5): a node that
// cannot store a pod (its disk is full) reports it Pending with reason
// NodeDiskFull; the pod shows the reason and one Warning Event says why,
// not repeated by the same report.
func TestHeldBackPodGetsAReasonAndAnEvent(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour})
	a := e.connect(t, "pi-1")
	pod := e.boundPod("web", "pi-1")
	msg := "the node cannot store this pod, its disk is full (no space left on device); it starts once space is freed on the node"
	held := mqtt.PodStatusEntry{Namespace: "default", Name: "web", UID: string(pod.UID),
		Status: corev1.PodStatus{Phase: corev1.PodPending, Reason: "NodeDiskFull", Message: msg}}
	a.report(t, held)
	waitUntil(t, "pod web NodeDiskFull", func() bool { return e.pod("web").Status.Reason == "NodeDiskFull" })
	reports := e.mon.Stats().PodReports
	a.report(t, held)
	waitUntil(t, "the repeat counted", func() bool { return e.mon.Stats().PodReports == reports+1 })
	time.Sleep(200 * time.Millisecond)

	res, _ := api.Lookup("", "v1", "events")
	page, err := e.store.List(context.Background(), res.Prefix("default"), datastore.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var found int
	for _, kv := range page.Items {
		obj, _, err := api.DecodeJSON(res, kv.Value, false)
		if err != nil {
			t.Fatal(err)
		}
		ev := obj.(*corev1.Event)
		if ev.Reason == "NodeDiskFull" && ev.Type == corev1.EventTypeWarning && ev.InvolvedObject.Name == "web" &&
			ev.Message == msg && ev.Source.Host == "pi-1" {
			found++
		}
	}
	if found != 1 {
		t.Fatalf("NodeDiskFull Warning Events about pod web from pi-1: got %d of %d events, want 1", found, len(page.Items))
	}
}
