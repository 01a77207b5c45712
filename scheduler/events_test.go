package scheduler

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/datastore"
)

// slowEventBinder is a storeBinder whose Event waits until release is
// closed, as an Event write stuck behind a slow commit would.
type slowEventBinder struct {
	*storeBinder
	release chan struct{}
	once    sync.Once
}

func (b *slowEventBinder) Event(ctx context.Context, pod *corev1.Pod, eventType, reason, message string) error {
	select {
	case <-b.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return b.storeBinder.Event(ctx, pod, eventType, reason, message)
}

// TestBindingsDoNotWaitForEvents: with one bind worker and the Event
// writes stuck, every pod is still bound; once the Events can be written,
// each bound pod has its Scheduled event.
func TestBindingsDoNotWaitForEvents(t *testing.T) {
	store := openStore(t, datastore.SQLiteConfig{})
	binder := &slowEventBinder{storeBinder: &storeBinder{store: store}, release: make(chan struct{})}
	defer binder.once.Do(func() { close(binder.release) })
	putObject(t, store, makeNode("amd-1"))
	const pods = 4
	for i := range pods {
		putObject(t, store, makePod("default", fmt.Sprint("p-", i), podReq("100m", "64Mi")))
	}
	s, err := New(Config{Store: store, Binder: binder, Logger: testLogger(t), BindWorkers: 1, EventWorkers: 1,
		InitialBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	for i := range pods {
		waitPod(t, store, "default", fmt.Sprint("p-", i), "bound while its Event waits", isBound)
	}
	if got := binder.eventsOf("default", "p-0", reasonScheduled); len(got) != 0 {
		t.Fatalf("Scheduled events before release: got %q, want none", got)
	}
	binder.once.Do(func() { close(binder.release) })
	for i := range pods {
		name := fmt.Sprint("p-", i)
		waitFor(t, func() bool { return len(binder.eventsOf("default", name, reasonScheduled)) == 1 })
	}
}

func TestEventWorkersMustNotBeNegative(t *testing.T) {
	_, err := New(Config{Store: openStore(t, datastore.SQLiteConfig{}), Binder: &nullBinder{}, EventWorkers: -1})
	if err == nil || err.Error() != "scheduler config: EventWorkers is -1, want 0 (default 8) or more" {
		t.Errorf("got %v, want an error naming EventWorkers", err)
	}
}

// TestEventQueue: Events come out in order; a push waits only while the
// queue is full, until a pop makes room; pop and a waiting push end with
// their context.
func TestEventQueue(t *testing.T) {
	q := newEventQueue(2)
	ctx := context.Background()
	for _, r := range []string{"a", "b"} {
		if !q.push(ctx, eventJob{reason: r}) {
			t.Fatalf("push %s: got false, want true", r)
		}
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if q.push(short, eventJob{reason: "c"}) {
		t.Fatal("push into a full queue: got true before its context ended, want false")
	}
	pushed := make(chan bool)
	go func() { pushed <- q.push(ctx, eventJob{reason: "c"}) }()
	var got []string
	for range 3 {
		ev, ok := q.pop(ctx)
		if !ok {
			t.Fatal("pop: got false, want an event")
		}
		got = append(got, ev.reason)
	}
	if !<-pushed {
		t.Error("push waiting for room: got false, want true")
	}
	if fmt.Sprint(got) != "[a b c]" {
		t.Errorf("popped %v, want [a b c]", got)
	}
	if _, ok := q.pop(short); ok {
		t.Error("pop from an empty queue after its context ended: got an event, want false")
	}
}

// TestScheduledMessage: the Scheduled Event's message reads as
// kube-scheduler's, whatever the names hold.
func TestScheduledMessage(t *testing.T) {
	for _, tc := range [][2]string{{"default/web-1", "n1"}, {"ns/p%s", "node-%d"}, {"", ""}} {
		want := fmt.Sprintf("Successfully assigned %s to %s", tc[0], tc[1])
		if got := scheduledMessage(tc[0], tc[1]); got != want {
			t.Errorf("scheduledMessage(%q, %q) = %q, want %q", tc[0], tc[1], got, want)
		}
	}
}
