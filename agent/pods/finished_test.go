package pods

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/clock"
)

// finishedLog records the pods OnFinished was called for and whether
// their containers were all gone by then.
type finishedLog struct {
	mu    sync.Mutex
	names []string
	clean bool
}

// TestOnFinishedAfterContainersStopped: a pod stopped for its
// deletionTimestamp is reported finished once its containers are gone; a
// pod merely dropped from the desired set (force-deleted) is not.
func TestOnFinishedAfterContainersStopped(t *testing.T) {
	rt := newFakeRuntime(clock.Real{})
	got := &finishedLog{clean: true}
	cfg := testLogDirs(t, Config{DataDir: t.TempDir(), SyncPeriod: 10 * time.Millisecond})
	cfg.OnFinished = func(p *corev1.Pod) {
		got.mu.Lock()
		defer got.mu.Unlock()
		got.names = append(got.names, p.Name)
		got.clean = got.clean && rt.count() == 0
	}
	m, err := NewManager(rt, (&fakeStore{}).lookup, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.Start(context.Background())
	t.Cleanup(m.Stop)
	graceful, forced := testPod(corev1.RestartPolicyAlways, "app"), testPod(corev1.RestartPolicyAlways, "app")
	forced.UID, forced.Name = "uid-2", "forced"
	m.Sync([]*corev1.Pod{graceful, forced})
	waitFor(t, "both pods running", func() bool { return len(rt.running("app")) == 2 })
	m.Sync([]*corev1.Pod{graceful})
	waitFor(t, "the forced pod removed", func() bool { return rt.count() == 1 })
	graceful = graceful.DeepCopy()
	now := metav1Now()
	graceful.DeletionTimestamp = &now
	m.Update(graceful)
	waitFor(t, "the graceful pod finished", func() bool {
		got.mu.Lock()
		defer got.mu.Unlock()
		return len(got.names) > 0
	})
	time.Sleep(50 * time.Millisecond)
	got.mu.Lock()
	defer got.mu.Unlock()
	if len(got.names) != 1 || got.names[0] != graceful.Name || !got.clean {
		t.Errorf("OnFinished: got %v (containers gone first: %v), want [%s] once its containers were gone", got.names, got.clean, graceful.Name)
	}
}
