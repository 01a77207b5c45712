package nodestatus_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/nodestatus"
)

// gone says whether the pod is no longer stored.
func (e *env) gone(name string) bool {
	res, _ := api.Lookup("", "v1", "pods")
	_, err := e.store.Get(context.Background(), res.Key("default", name))
	return err != nil
}

// terminate deletes a bound pod gracefully (it stays, terminating).
func (e *env) terminate(name string) {
	e.t.Helper()
	res, _ := api.Lookup("", "v1", "pods")
	if err := e.api.Registry().Client().Delete(context.Background(), res, "default", name, controllers.DeleteOptions{}); err != nil {
		e.t.Fatal(err)
	}
	if e.pod(name).DeletionTimestamp == nil {
		e.t.Fatalf("pod %s: no deletionTimestamp after a graceful delete", name)
	}
}

func finished(pod *corev1.Pod) mqtt.PodStatusEntry {
	e := running(pod)
	e.Status.Phase = corev1.PodSucceeded
	e.Finished = true
	return e
}

// TestFinishedPodDeleted: a node's Finished report writes the final status
// and deletes a terminating pod bound to it; it deletes neither a pod
// not being deleted nor another node's pod.
func TestFinishedPodDeleted(t *testing.T) {
	e := newEnv(t, nodestatus.Config{GracePeriod: time.Hour})
	a := e.connect(t, "pi-1")
	done, alive, theirs := e.boundPod("done", "pi-1"), e.boundPod("alive", "pi-1"), e.boundPod("theirs", "pi-2")
	e.terminate("done")
	e.terminate("theirs")

	a.report(t, finished(done), finished(alive), finished(theirs))
	waitUntil(t, "pod done deleted", func() bool { return e.gone("done") })
	waitUntil(t, "pod alive Succeeded", func() bool { return e.pod("alive").Status.Phase == corev1.PodSucceeded })
	time.Sleep(200 * time.Millisecond) // the same batch: any wrong delete would be done by now
	if e.gone("alive") || e.gone("theirs") {
		t.Fatalf("got alive gone %v, theirs gone %v; want both kept", e.gone("alive"), e.gone("theirs"))
	}
}
