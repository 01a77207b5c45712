package hollownode_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// TestHollowNodeFinishesDeletion: a running pod deleted gracefully stays
// Terminating until its hollow node reports it stopped, then is gone.
func TestHollowNodeFinishesDeletion(t *testing.T) {
	c := startCluster(t)
	startFleet(t, c, t.TempDir())
	boundPod(t, c, "web", "pi-2", corev1.RestartPolicyAlways)
	waitUntil(t, "pod web Running", func() bool {
		p := get[*corev1.Pod](t, c, "pods", "default", "web")
		return p != nil && p.Status.Phase == corev1.PodRunning
	})
	res, _ := api.Lookup("", "v1", "pods")
	if err := c.Client.Delete(context.Background(), res, "default", "web", controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "pod web finished by its node", func() bool { return get[*corev1.Pod](t, c, "pods", "default", "web") == nil })
}
