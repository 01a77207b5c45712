package hollownode_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
	"github.com/bramble-edge/bramble/bench/minicluster"
	"github.com/bramble-edge/bramble/server/nodestatus"
)

const waitLong = 30 * time.Second

func testLogger() *slog.Logger {
	if os.Getenv("BRAMBLE_TEST_LOG") == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func startCluster(t testing.TB) *minicluster.Cluster {
	t.Helper()
	// The tests bind their pods by hand; the scheduler would race them.
	c, err := minicluster.Start(context.Background(), minicluster.Config{Dir: t.TempDir(), Logger: testLogger(), DisableScheduler: true,
		NodeStatus: nodestatus.Config{GracePeriod: 5 * time.Second, OfflineConfirm: time.Second,
			CheckInterval: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

func startFleet(t testing.TB, c *minicluster.Cluster, stateDir string) *hollownode.Fleet {
	t.Helper()
	f, err := hollownode.Start(context.Background(), hollownode.Config{Server: c.URL, Token: c.Token, Nodes: 3,
		Prefix: "pi", Memory: resource.MustParse("8Gi"), Labels: map[string]string{"tier": "edge"},
		Heartbeat: time.Second, StateDir: stateDir, SucceedAfter: 300 * time.Millisecond, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Stop)
	return f
}

func get[T api.Object](t testing.TB, c *minicluster.Cluster, resource, ns, name string) T {
	t.Helper()
	var zero T
	res, _ := api.Lookup("", "v1", resource)
	kv, err := c.Store.Get(context.Background(), res.Key(ns, name))
	if err != nil {
		return zero
	}
	obj, _, err := api.DecodeJSON(res, kv.Value, false)
	if err != nil {
		t.Fatal(err)
	}
	obj.SetResourceVersion(strconv.FormatInt(kv.ModRevision, 10))
	return obj.(T)
}

func ready(n *corev1.Node) corev1.ConditionStatus {
	if n != nil {
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status
			}
		}
	}
	return ""
}

func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", waitLong, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitNodes(t testing.TB, c *minicluster.Cluster, want corev1.ConditionStatus) {
	t.Helper()
	for _, name := range []string{"pi-0", "pi-1", "pi-2"} {
		waitUntil(t, name+" Ready="+string(want), func() bool {
			return ready(get[*corev1.Node](t, c, "nodes", "", name)) == want
		})
	}
}

func boundPod(t testing.TB, c *minicluster.Cluster, name, node string, restart corev1.RestartPolicy) {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{RestartPolicy: restart, Containers: []corev1.Container{{Name: "main", Image: "busybox:1.36"}}}}
	if _, err := c.Client.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if err := c.Client.Bind(ctx, "default", name, node); err != nil {
		t.Fatal(err)
	}
}

// TestHollowFleet: three hollow nodes join over the real join endpoint and
// MQTT, register Ready with the hardware and labels they were given, run
// the pods bound to them (one that restarts: Running and Ready; one that
// does not: Succeeded), go Unknown when stopped, and come back after a
// restart without joining again and without rewriting their pods' status.
func TestHollowFleet(t *testing.T) {
	c := startCluster(t)
	stateDir := t.TempDir()
	f := startFleet(t, c, stateDir)
	waitNodes(t, c, corev1.ConditionTrue)
	n := get[*corev1.Node](t, c, "nodes", "", "pi-1")
	if n.Labels["tier"] != "edge" || n.Labels["kubernetes.io/arch"] != "arm64" || n.Labels["kubernetes.io/hostname"] != "pi-1" {
		t.Errorf("labels: got %v, want tier=edge, kubernetes.io/arch=arm64, kubernetes.io/hostname=pi-1", n.Labels)
	}
	if got := n.Status.Allocatable.Memory().String(); got != "8Gi" {
		t.Errorf("allocatable memory: got %s, want 8Gi", got)
	}

	boundPod(t, c, "web", "pi-0", corev1.RestartPolicyAlways)
	boundPod(t, c, "once", "pi-1", corev1.RestartPolicyNever)
	waitUntil(t, "pod web Running and Ready", func() bool {
		p := get[*corev1.Pod](t, c, "pods", "default", "web")
		return p.Status.Phase == corev1.PodRunning && len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].Ready
	})
	waitUntil(t, "pod once Succeeded", func() bool {
		return get[*corev1.Pod](t, c, "pods", "default", "once").Status.Phase == corev1.PodSucceeded
	})
	webRV := get[*corev1.Pod](t, c, "pods", "default", "web").ResourceVersion
	cert, err := os.ReadFile(filepath.Join(stateDir, "pi-0", "node.crt"))
	if err != nil {
		t.Fatal(err)
	}

	f.Stop()
	waitNodes(t, c, corev1.ConditionUnknown)

	f = startFleet(t, c, stateDir)
	waitNodes(t, c, corev1.ConditionTrue)
	waitUntil(t, "pi-0 applied its view again", func() bool { return f.Nodes()[0].Rev() > 0 })
	time.Sleep(500 * time.Millisecond) // room for a pod status report, which must not be written
	if got := get[*corev1.Pod](t, c, "pods", "default", "web").ResourceVersion; got != webRV {
		t.Errorf("pod web after the fleet restarted: got resourceVersion %s, want %s (unchanged)", got, webRV)
	}
	again, err := os.ReadFile(filepath.Join(stateDir, "pi-0", "node.crt"))
	if err != nil || !bytes.Equal(again, cert) {
		t.Errorf("pi-0's certificate after a restart: changed (err %v), want the saved one reused", err)
	}
}
