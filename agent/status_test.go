package agent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"strconv"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/mqtt"
)

// fakePublisher keeps what is published; fail makes the next calls fail.
type fakePublisher struct {
	mu   sync.Mutex
	fail bool
	got  []*mqtt.PodStatusReport
}

func (f *fakePublisher) Publish(_ context.Context, topic string, qos byte, payload []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		return errors.New("broker away")
	}
	if topic != mqtt.PodStatusTopic("pi") || qos != 1 {
		return errors.New("wrong topic or qos: " + topic)
	}
	r, err := mqtt.DecodePodStatus(payload)
	if err != nil {
		return err
	}
	f.got = append(f.got, r)
	return nil
}

func TestStatusBatchKeepsLatestAndRetries(t *testing.T) {
	b := newStatusBatch("pi", 0, isStaticUID, slog.New(slog.NewTextHandler(io.Discard, nil)))
	pod := testPod("web", "u1")
	b.OnStatus(pod, corev1.PodStatus{Phase: corev1.PodPending})
	b.OnStatus(testPod("etcd-pi", "static-9"), corev1.PodStatus{Phase: corev1.PodRunning})
	b.flush(context.Background()) // no publisher yet: kept
	pub := &fakePublisher{fail: true}
	b.setPublisher(pub)
	b.flush(context.Background()) // fails: kept
	b.OnStatus(pod, corev1.PodStatus{Phase: corev1.PodRunning})
	pub.fail = false
	b.flush(context.Background())
	if len(pub.got) != 1 || len(pub.got[0].Pods) != 1 {
		t.Fatalf("got %d reports, want one with one pod (static pods are not reported)", len(pub.got))
	}
	if e := pub.got[0].Pods[0]; e.Name != "web" || e.UID != "u1" || e.Status.Phase != corev1.PodRunning {
		t.Errorf("got %s %s %s, want web u1 Running (the latest status)", e.Name, e.UID, e.Status.Phase)
	}
	b.flush(context.Background())
	if len(pub.got) != 1 {
		t.Errorf("flush with nothing pending: got %d reports, want 1", len(pub.got))
	}
}

func TestStatusBatchSplitsLargeBatches(t *testing.T) {
	b := newStatusBatch("pi", 0, isStaticUID, slog.New(slog.NewTextHandler(io.Discard, nil)))
	n := mqtt.MaxPodStatusBatch + 3
	for i := range n {
		b.OnStatus(testPod("p"+strconv.Itoa(i), "u"+strconv.Itoa(i)), corev1.PodStatus{Phase: corev1.PodRunning})
	}
	pub := &fakePublisher{}
	b.setPublisher(pub)
	b.flush(context.Background())
	total := 0
	for _, r := range pub.got {
		total += len(r.Pods)
	}
	if len(pub.got) != 2 || total != n {
		t.Errorf("got %d reports with %d pods, want 2 with %d", len(pub.got), total, n)
	}
}

// TestStatusBatchResendsAfterReconnect: after a reconnect the last status
// sent of each pod still the agent's goes out again (the server may have
// lost it), a newer queued status wins over it, and a gone pod's is
// forgotten.
func TestStatusBatchResendsAfterReconnect(t *testing.T) {
	b := newStatusBatch("pi", 0, isStaticUID, slog.New(slog.NewTextHandler(io.Discard, nil)))
	gone := map[string]bool{}
	b.alive = func(uid types.UID) bool { return !gone[string(uid)] }
	pub := &fakePublisher{}
	b.setPublisher(pub)
	for _, name := range []string{"a", "b", "c"} {
		b.OnStatus(testPod(name, "u-"+name), corev1.PodStatus{Phase: corev1.PodRunning})
	}
	b.flush(context.Background())
	b.resend() // nothing lost yet, but nothing tells the agent so
	b.flush(context.Background())
	if len(pub.got) != 2 || len(pub.got[1].Pods) != 3 {
		t.Fatalf("after a reconnect: got %d reports, want a second one with all 3 pods", len(pub.got))
	}

	gone["u-b"] = true
	b.OnStatus(testPod("c", "u-c"), corev1.PodStatus{Phase: corev1.PodSucceeded})
	b.resend()
	b.flush(context.Background())
	got := map[string]corev1.PodPhase{}
	for _, e := range pub.got[2].Pods {
		got[e.Name] = e.Status.Phase
	}
	want := map[string]corev1.PodPhase{"a": corev1.PodRunning, "c": corev1.PodSucceeded}
	if len(pub.got) != 3 || !maps.Equal(got, want) {
		t.Errorf("resend with b gone and c newer: got %v in %d reports, want %v in a third", got, len(pub.got), want)
	}
	if _, kept := b.sent["default/b"]; kept {
		t.Error("the gone pod's last status is still kept")
	}
}
