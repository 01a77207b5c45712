package agent

import (
	"context"
	"io"
	"log/slog"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// TestOnFinishedMarksTheLastStatus: the pod's last status goes out again
// marked Finished; a pod never reported sends its desired copy's status.
func TestOnFinishedMarksTheLastStatus(t *testing.T) {
	b := newStatusBatch("pi", 0, isStaticUID, slog.New(slog.NewTextHandler(io.Discard, nil)))
	pub := &fakePublisher{}
	b.setPublisher(pub)
	web, quiet := testPod("web", "u1"), testPod("quiet", "u2")
	b.OnStatus(web, corev1.PodStatus{Phase: corev1.PodSucceeded})
	b.flush(context.Background())
	b.OnFinished(web)
	b.OnFinished(quiet)
	b.flush(context.Background())
	if len(pub.got) != 2 || len(pub.got[1].Pods) != 2 {
		t.Fatalf("got %d reports, want a second one with both pods", len(pub.got))
	}
	for _, e := range pub.got[1].Pods {
		want := map[string]corev1.PodPhase{"web": corev1.PodSucceeded, "quiet": corev1.PodPending}[e.Name]
		if !e.Finished || e.Status.Phase != want {
			t.Errorf("pod %s: got finished %v, phase %s; want finished, %s", e.Name, e.Finished, e.Status.Phase, want)
		}
	}
}

type fakeContainers []runtime.ContainerStatus

func (f fakeContainers) ListContainers(context.Context) ([]runtime.ContainerStatus, error) {
	return f, nil
}

// TestFinisherFinishesOnlyIdlePods: after a (re)connect the agent finishes
// terminating pods with neither a worker nor a container, and no other.
func TestFinisherFinishesOnlyIdlePods(t *testing.T) {
	now := metav1.Now()
	pod := func(name, uid, node string, deleting bool) *corev1.Pod {
		p := testPod(name, uid)
		p.Spec.NodeName = node
		if deleting {
			p.DeletionTimestamp = &now
		}
		return p
	}
	pods := []*corev1.Pod{pod("idle", "u1", "pi", true), pod("worked", "u2", "pi", true),
		pod("running", "u3", "pi", true), pod("alive", "u4", "pi", false), pod("other", "u5", "pi-2", true)}
	var finished []string
	f := &finisher{node: "pi", pods: func() []*corev1.Pod { return pods },
		runs:   func(uid types.UID) bool { return uid == "u2" },
		rt:     fakeContainers{{ID: "c3", PodUID: "u3"}},
		finish: func(p *corev1.Pod) { finished = append(finished, p.Name) },
		log:    slog.New(slog.NewTextHandler(io.Discard, nil)), kick: make(chan struct{}, 1)}
	f.pass(context.Background())
	if len(finished) != 1 || finished[0] != "idle" {
		t.Fatalf("finished %v, want [idle]", finished)
	}
}
