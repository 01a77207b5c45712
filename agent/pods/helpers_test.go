package pods

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/clock/clocktest"
)

// harness drives one worker step by step with a fake runtime and clock.
type harness struct {
	t     testing.TB
	clock *clocktest.Fake
	rt    *fakeRuntime
	store *fakeStore
	w     *worker
	pod   *corev1.Pod
	calls int
}

func newHarness(t testing.TB, pod *corev1.Pod) *harness {
	t.Helper()
	h := &harness{t: t, clock: newFakeClock(), store: &fakeStore{}, pod: pod}
	h.rt = newFakeRuntime(h.clock)
	m, err := NewManager(h.rt, h.store.lookup, func(*corev1.Pod, corev1.PodStatus) { h.calls++ }, testLogDirs(t, Config{
		DataDir: t.TempDir(), NodeName: "pi-1", NodeIP: "10.0.0.5", Clock: h.clock,
	}))
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	h.w = newWorker(m, pod)
	return h
}

// step runs one sync and returns the status it reports.
func (h *harness) step() corev1.PodStatus {
	h.w.sync(context.Background(), h.pod)
	h.w.report(h.pod)
	return *h.w.last
}

func testPod(policy corev1.RestartPolicy, names ...string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: types.UID("uid-1")},
		Spec:       corev1.PodSpec{RestartPolicy: policy, NodeName: "pi-1"},
	}
	for _, n := range names {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: n, Image: "busybox"})
	}
	return p
}

func ctrStatus(t testing.TB, s corev1.PodStatus, name string) corev1.ContainerStatus {
	t.Helper()
	for _, c := range append(append([]corev1.ContainerStatus{}, s.InitContainerStatuses...), s.ContainerStatuses...) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no status for container %s in %+v", name, s)
	return corev1.ContainerStatus{}
}

func waitingReason(c corev1.ContainerStatus) string {
	if c.State.Waiting == nil {
		return ""
	}
	return c.State.Waiting.Reason
}

func condition(s corev1.PodStatus, t corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range s.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

func secs(n int) time.Duration { return time.Duration(n) * time.Second }

func metav1Now() metav1.Time { return metav1.Now() }

// testLogDirs puts a test's log roots in its temp dir, never /var/log.
func testLogDirs(t testing.TB, cfg Config) Config {
	dir := t.TempDir()
	cfg.PodLogDir, cfg.ContainerLogDir = filepath.Join(dir, "pods"), filepath.Join(dir, "containers")
	return cfg
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
