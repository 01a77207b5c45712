package events

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/clock/clocktest"
	"github.com/bramble-edge/bramble/mqtt"
)

// fakePub keeps what is published, decoded; down makes it fail as a node
// without a connection does.
type fakePub struct {
	down    bool
	reports []*mqtt.EventReport
}

func (p *fakePub) Publish(_ context.Context, topic string, qos byte, payload []byte) error {
	if p.down {
		return errors.New("not connected")
	}
	if topic != mqtt.EventsTopic("pi-0") || qos != 1 {
		return fmt.Errorf("published on %s at QoS %d", topic, qos)
	}
	r, err := mqtt.DecodeEvents(payload)
	if err != nil {
		return err
	}
	p.reports = append(p.reports, r)
	return nil
}

// last is the newest report; it fails the test when there is none.
func (p *fakePub) last(t *testing.T) *mqtt.EventReport {
	t.Helper()
	if len(p.reports) == 0 {
		t.Fatal("nothing published")
	}
	return p.reports[len(p.reports)-1]
}

var start = time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)

func newTest(cfg Config) (*Recorder, *clocktest.Fake, *fakePub) {
	clk := clocktest.NewFake(start)
	cfg.Clock = clk
	return New("pi-0", cfg), clk, &fakePub{}
}

func testPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: k8stypes.UID("uid-" + name)},
		Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "setup"}}, Containers: []corev1.Container{{Name: "app"}}}}
}

func flush(t *testing.T, r *Recorder, pub *fakePub) time.Duration {
	t.Helper()
	next, err := r.Flush(context.Background(), pub)
	if err != nil {
		t.Fatal(err)
	}
	return next
}

func TestIdenticalEventsAggregate(t *testing.T) {
	r, clk, pub := newTest(Config{})
	ref := PodRef(testPod("web"), "app")
	for range 3 {
		r.Eventf(ref, Warning, "BackOff", "Back-off restarting failed container %s", "app")
		clk.Advance(10 * time.Second)
	}
	flush(t, r, pub)
	got := pub.last(t).Events
	if len(got) != 1 || got[0].Count != 3 || !got[0].FirstTimestamp.Equal(start) || !got[0].LastTimestamp.Equal(start.Add(20*time.Second)) {
		t.Fatalf("after three identical events: got %+v, want one series of count 3 from %s to +20s", got, start)
	}
	if got[0].Object.FieldPath != "spec.containers{app}" {
		t.Errorf("fieldPath: got %q, want spec.containers{app}", got[0].Object.FieldPath)
	}
	r.Eventf(ref, Warning, "BackOff", "Back-off restarting failed container %s", "app")
	r.Eventf(ref, Warning, "BackOff", "Back-off restarting failed container %s", "app")
	flush(t, r, pub)
	if got := pub.last(t).Events; len(pub.reports) != 2 || len(got) != 1 || got[0].Count != 5 {
		t.Fatalf("two more: got %d reports, last %+v; want a second report with count 5 (counts are whole, not increments)", len(pub.reports), got)
	}
	flush(t, r, pub)
	if len(pub.reports) != 2 {
		t.Errorf("a flush with nothing new published report %+v", pub.last(t))
	}
}

func TestSimilarEventsCombine(t *testing.T) {
	r, _, pub := newTest(Config{SimilarLimit: 3})
	ref := PodRef(testPod("web"), "setup")
	for i := range 6 {
		r.Eventf(ref, Warning, "Unhealthy", "Readiness probe failed: attempt %d", i)
	}
	r.Eventf(ref, Warning, "Unhealthy", "Readiness probe failed: attempt %d", 1)
	flush(t, r, pub)
	got := pub.last(t).Events
	if len(got) != 4 {
		t.Fatalf("got %d series %+v, want 3 distinct and 1 combined", len(got), got)
	}
	if got[1].Count != 2 || got[1].Message != "Readiness probe failed: attempt 1" {
		t.Errorf("a message seen before the limit keeps its series: got %+v", got[1])
	}
	if c := got[3]; c.Message != combinedPrefix+"Unhealthy" || c.Count != 3 || c.Object.FieldPath != "spec.initContainers{setup}" {
		t.Errorf("combined series: got %+v, want %q with count 3 on the init container", c, combinedPrefix+"Unhealthy")
	}
}

func TestSpamFilterPerObject(t *testing.T) {
	r, clk, pub := newTest(Config{Burst: 2, Refill: time.Minute})
	web, db := PodRef(testPod("web"), ""), PodRef(testPod("db"), "")
	for i := range 4 {
		r.Eventf(web, Normal, "Pulling", "image %d", i)
	}
	r.Event(db, Normal, "Pulling", "image")
	next := flush(t, r, pub)
	if got := pub.last(t).Events; len(got) != 3 || got[2].Object.Name != "db" {
		t.Fatalf("first flush: got %+v, want web's first two and db's", got)
	}
	if next != time.Minute {
		t.Errorf("next: got %s, want web's next token in 1m", next)
	}
	r.Eventf(web, Normal, "Pulling", "image %d", 0) // a repeat waits as well
	clk.Advance(time.Minute)
	flush(t, r, pub)
	if got := pub.last(t).Events; len(got) != 1 || got[0].Message != "image 2" {
		t.Fatalf("after one refill: got %+v, want the oldest waiting series (image 2) only", got)
	}
	clk.Advance(2 * time.Minute)
	flush(t, r, pub)
	got := pub.last(t).Events
	if len(got) != 2 || got[0].Message != "image 3" || got[1].Message != "image 0" || got[1].Count != 2 {
		t.Fatalf("after two refills: got %+v, want image 3 and image 0 with count 2", got)
	}
	if s := r.Stats(); s.Throttled == 0 || s.Sent != 6 || s.Recorded != 6 {
		t.Errorf("stats: got %+v, want throttled > 0, 6 sent, 6 recorded", s)
	}
}

func TestOfflineBufferDropsAndReports(t *testing.T) {
	r, _, pub := newTest(Config{MaxPending: 2})
	pub.down = true
	node := NodeRef("pi-0")
	r.Event(node, Warning, "Rebooted", "Node pi-0 has been rebooted, boot id: b")
	r.Event(node, Normal, "NodeReady", "Node pi-0 status is now: NodeReady")
	r.Event(node, Warning, "ImageGCFailed", "disk")
	r.Event(node, Warning, "ImageGCFailed", "disk")
	r.Event(node, Warning, "FreeDiskSpaceFailed", "disk")
	if _, err := r.Flush(context.Background(), pub); err == nil {
		t.Fatal("flush while offline: got no error")
	}
	r.Event(node, Normal, "NodeReady", "Node pi-0 status is now: NodeReady") // already waiting: no drop
	pub.down = false
	flush(t, r, pub)
	got := pub.last(t)
	if got.Dropped != 3 || len(got.Events) != 2 || got.Events[0].Reason != "Rebooted" || got.Events[1].Count != 2 {
		t.Fatalf("back online: got %+v, want Rebooted, NodeReady x2 and 3 dropped", got)
	}
	r.Event(node, Normal, "NodeReady", "Node pi-0 status is now: NodeReady")
	flush(t, r, pub)
	if got := pub.last(t); got.Dropped != 0 || got.Events[0].Count != 3 {
		t.Errorf("the next report: got %+v, want no drops repeated and NodeReady x3", got)
	}
}

func TestBatchesAreBounded(t *testing.T) {
	r, _, pub := newTest(Config{MaxPending: 1000})
	for i := range mqtt.MaxEventsBatch + 10 {
		r.Event(PodRef(testPod(fmt.Sprintf("p%d", i)), "app"), Normal, "Created", "Created container: app")
	}
	flush(t, r, pub)
	if len(pub.reports) != 2 || len(pub.reports[0].Events) != mqtt.MaxEventsBatch || len(pub.reports[1].Events) != 10 {
		t.Fatalf("got %d reports, want one full batch of %d and one of 10", len(pub.reports), mqtt.MaxEventsBatch)
	}
}

func TestLongMessagesAreCut(t *testing.T) {
	r, _, pub := newTest(Config{})
	long := make([]byte, 5000)
	for i := range long {
		long[i] = 'x'
	}
	r.Event(NodeRef("pi-0"), Warning, "ImageGCFailed", string(long))
	flush(t, r, pub)
	if m := pub.last(t).Events[0].Message; len(m) != mqtt.MaxEventMessageBytes || m[len(m)-3:] != "..." {
		t.Errorf("message: got %d bytes ending %q, want %d ending ...", len(m), m[len(m)-3:], mqtt.MaxEventMessageBytes)
	}
}
