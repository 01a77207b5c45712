package pods

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// recorded is one event a worker recorded.
type recorded struct {
	obj                  mqtt.EventObject
	typ, reason, message string
}

// eventLog is an EventRecorder that keeps everything.
type eventLog struct {
	mu  sync.Mutex
	evs []recorded
}

func (l *eventLog) Event(obj mqtt.EventObject, typ, reason, message string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, recorded{obj, typ, reason, message})
}

// count counts the events with reason whose message contains part.
func (l *eventLog) count(reason, part string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.evs {
		if e.reason == reason && strings.Contains(e.message, part) {
			n++
		}
	}
	return n
}

func withEvents(h *harness) *eventLog {
	l := &eventLog{}
	h.w.m.cfg.Events = l
	return l
}

func TestCrashLoopTellsOneBackOffPerStep(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	evs := withEvents(h)
	h.rt.autoExit["app"] = 1
	h.step()
	h.step() // the first crash restarts at once
	steps := []time.Duration{10, 20, 40, 80}
	for _, d := range steps {
		for range 5 { // syncs while backing off tell nothing new
			h.step()
			h.clock.Advance(d * time.Second / 5)
		}
		h.step()
	}
	if got := evs.count("BackOff", "Back-off restarting failed container app in pod web_default(uid-1)"); got != len(steps) {
		t.Errorf("BackOff events: got %d, want one per back-off step (%d)", got, len(steps))
	}
	starts := len(steps) + 2
	if got, want := evs.count("Created", "Created container: app"), starts; got != want {
		t.Errorf("Created events: got %d, want one per start (%d)", got, want)
	}
	if got := evs.count("Started", "Started container app"); got != starts {
		t.Errorf("Started events: got %d, want %d", got, starts)
	}
	if got := evs.count("Pulled", `Container image "busybox" already present on machine`); got != starts {
		t.Errorf("Pulled events: got %d, want %d", got, starts)
	}
	if e := evs.evs[0]; e.obj.Kind != "Pod" || e.obj.Name != "web" || e.obj.UID != "uid-1" || e.obj.FieldPath != "spec.containers{app}" {
		t.Errorf("event object: got %+v, want pod web's container app", e.obj)
	}
}

func TestImagePullFailureTellsTheReason(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	evs := withEvents(h)
	h.rt.pullErr = errors.New("pull image docker.io/library/busybox:latest: not found")
	h.step()
	if got := evs.count("Failed", `Failed to pull image "busybox": pull image docker.io/library/busybox:latest: not found`); got != 1 {
		t.Errorf("Failed with the registry's reason: got %d, want 1 (%+v)", got, evs.evs)
	}
	if got := evs.count("Failed", "Error: ErrImagePull"); got != 1 {
		t.Errorf("Failed ErrImagePull: got %d, want 1", got)
	}
	for range 5 {
		h.clock.Advance(time.Second)
		h.step()
	}
	if got := evs.count("BackOff", `Back-off pulling image "busybox"`); got != 1 {
		t.Errorf("BackOff while waiting out one step: got %d, want 1", got)
	}
	h.clock.Advance(10 * time.Second)
	h.step()
	if got := evs.count("Failed", "Error: ErrImagePull"); got != 2 {
		t.Errorf("after the back-off the pull is tried again: got %d ErrImagePull, want 2", got)
	}
}

func TestAlwaysPullOnANodeThatCannotPullSaysSo(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Containers[0].ImagePullPolicy = corev1.PullAlways
	h := newHarness(t, pod)
	evs := withEvents(h)
	h.rt.pullErr = errors.New("dial tcp: lookup registry-1.docker.io: no such host")
	h.step()
	if got := evs.count("Pulling", `Pulling image "busybox"`); got != 1 {
		t.Errorf("Pulling: got %d, want 1", got)
	}
	if got := evs.count("Failed", "imagePullPolicy is Always, so the image must be pulled from its registry, and this node cannot pull it"); got != 1 {
		t.Errorf("the airgap hint: got %d, want 1 (%+v)", got, evs.evs)
	}
}

func TestFailingProbeIsUnhealthy(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "app")
	pod.Spec.Containers[0].ReadinessProbe = execProbe(1)
	h := newHarness(t, pod)
	evs := withEvents(h)
	h.rt.execCode["app"] = 1
	h.step() // starts the container
	for range 3 {
		h.step()
		h.clock.Advance(time.Second)
	}
	if got := evs.count("Unhealthy", `Readiness probe failed: command "true" exited with 1`); got != 3 {
		t.Errorf("Unhealthy: got %d, want one per failed probe (3): %+v", got, evs.evs)
	}
}

func TestOOMKilledIsTold(t *testing.T) {
	h := newHarness(t, testPod(corev1.RestartPolicyAlways, "app"))
	evs := withEvents(h)
	h.step()
	h.rt.exit("app", 137, true)
	h.step()
	if got := evs.count("OOMKilled", "Container app was OOM-killed (exit code 137)"); got != 1 {
		t.Errorf("OOMKilled: got %d, want 1 (%+v)", got, evs.evs)
	}
}
