package pods

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/clock"
)

// statusLog records OnStatus calls.
type statusLog struct {
	mu   sync.Mutex
	last map[types.UID]corev1.PodStatus
	n    int
}

func (l *statusLog) record(p *corev1.Pod, s corev1.PodStatus) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		l.last = map[types.UID]corev1.PodStatus{}
	}
	l.last[p.UID] = s
	l.n++
}

func (l *statusLog) get(uid types.UID) (corev1.PodStatus, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.last[uid]
	return s, ok
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func startManager(t testing.TB, rt *fakeRuntime, store *fakeStore, log *statusLog, dataDir string) *Manager {
	t.Helper()
	m, err := NewManager(rt, store.lookup, log.record, testLogDirs(t, Config{DataDir: dataDir, NodeIP: "10.0.0.5", SyncPeriod: 10 * time.Millisecond}))
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	m.Start(context.Background())
	t.Cleanup(m.Stop)
	return m
}

func TestManagerSyncDeleteAndOrphans(t *testing.T) {
	rt := newFakeRuntime(clock.Real{})
	rt.ctrs["orphan"] = &fakeCtr{}
	rt.ctrs["orphan"].status.ID, rt.ctrs["orphan"].status.PodUID = "orphan", "gone"
	store, log := &fakeStore{}, &statusLog{}
	dataDir := t.TempDir()
	m := startManager(t, rt, store, log, dataDir)
	a, b := testPod(corev1.RestartPolicyAlways, "app"), testPod(corev1.RestartPolicyAlways, "app")
	b.UID, b.Name = "uid-2", "other"
	b.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	m.Sync([]*corev1.Pod{a, b})
	waitFor(t, "both pods running", func() bool {
		sa, _ := log.get("uid-1")
		sb, _ := log.get("uid-2")
		return sa.Phase == corev1.PodRunning && sb.Phase == corev1.PodRunning
	})
	// Orphans are removed in the background, after the first Sync.
	waitFor(t, "the orphan container of an unknown pod removed", func() bool {
		_, err := rt.ContainerStatus(context.Background(), "orphan")
		return err != nil
	})
	m.Sync([]*corev1.Pod{a}) // b is no longer wanted
	// The worker removes the pod's folder after its containers.
	waitFor(t, "pod b removed, its folder too", func() bool {
		_, err := os.Stat(podDir(dataDir, "uid-2"))
		return rt.count() == 1 && os.IsNotExist(err)
	})
	m.Delete("uid-1")
	waitFor(t, "pod a removed", func() bool { return rt.count() == 0 })
}

func TestManagerAdoptsRunningContainers(t *testing.T) {
	rt := newFakeRuntime(clock.Real{})
	store, log := &fakeStore{}, &statusLog{}
	dataDir := t.TempDir()
	pod := testPod(corev1.RestartPolicyAlways, "app")
	m := startManager(t, rt, store, log, dataDir)
	m.Sync([]*corev1.Pod{pod})
	waitFor(t, "pod running", func() bool { s, _ := log.get("uid-1"); return s.Phase == corev1.PodRunning })
	m.Stop()
	if rt.count() != 1 {
		t.Fatalf("after Stop: got %d containers, want the pod's one still there", rt.count())
	}
	log2 := &statusLog{}
	m2 := startManager(t, rt, store, log2, dataDir)
	m2.Sync([]*corev1.Pod{pod})
	waitFor(t, "adopted pod reported", func() bool { s, _ := log2.get("uid-1"); return s.Phase == corev1.PodRunning })
	if len(rt.started) != 1 {
		t.Errorf("adoption: got %d container starts, want the one from before", len(rt.started))
	}
}

func TestDeletionTimestampStopsWithGrace(t *testing.T) {
	rt := newFakeRuntime(clock.Real{})
	log := &statusLog{}
	m := startManager(t, rt, &fakeStore{}, log, t.TempDir())
	pod := testPod(corev1.RestartPolicyAlways, "app")
	m.Update(pod)
	waitFor(t, "pod running", func() bool { return len(rt.running("app")) == 1 })
	id := rt.running("app")[0]
	pod = pod.DeepCopy()
	grace := int64(3)
	pod.DeletionGracePeriodSeconds = &grace
	now := metav1Now()
	pod.DeletionTimestamp = &now
	m.Update(pod)
	waitFor(t, "pod removed", func() bool { return rt.count() == 0 })
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.stops[id] != 3*time.Second {
		t.Errorf("stop grace: got %s, want 3s", rt.stops[id])
	}
	s, _ := log.get("uid-1")
	if c := s.ContainerStatuses[0]; c.State.Terminated == nil {
		t.Errorf("final status: got %+v, want terminated", c.State)
	}
}

func TestSyncBeforeStartCleansOrphansAtStart(t *testing.T) {
	rt := newFakeRuntime(clock.Real{})
	rt.ctrs["orphan"] = &fakeCtr{status: runtimeStatus("orphan", "gone")}
	m, err := NewManager(rt, (&fakeStore{}).lookup, nil, testLogDirs(t, Config{DataDir: t.TempDir(), SyncPeriod: 10 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	m.Sync([]*corev1.Pod{testPod(corev1.RestartPolicyAlways, "app")})
	if len(rt.running("app")) != 0 {
		t.Fatalf("before Start: a container was started")
	}
	m.Start(context.Background())
	defer m.Stop()
	waitFor(t, "pod started and orphan removed", func() bool {
		_, err := rt.ContainerStatus(context.Background(), "orphan")
		return len(rt.running("app")) == 1 && err != nil
	})
}
