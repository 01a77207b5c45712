package scheduler

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/clock/clocktest"
)

func newTestQueue() (*queue, *clocktest.Fake) {
	clock := newFakeClock()
	return newQueue(clock, time.Second, 60*time.Second, 5*time.Minute), clock
}

// popNow pops a pod that must be ready already.
func popNow(t testing.TB, q *queue) popped {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	p, err := q.Pop(ctx)
	if err != nil {
		t.Fatalf("Pop: %v, want a ready pod", err)
	}
	return p
}

// assertEmpty checks that no pod is ready now.
func assertEmpty(t testing.TB, q *queue) {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	q.flush(q.clock.Now())
	if q.active.Len() != 0 {
		t.Fatalf("got %d ready pods, want none", q.active.Len())
	}
}

func TestQueuePriorityThenFIFO(t *testing.T) {
	q, _ := newTestQueue()
	for _, p := range []*corev1.Pod{
		makePod("ns", "low-1"), makePod("ns", "high-1", podPriority(10)), makePod("ns", "low-2", podPriority(0)),
		makePod("ns", "high-2", podPriority(10)), makePod("ns", "neg", podPriority(-5)), makePod("ns", "low-3"),
	} {
		q.add(newPodInfo(p))
	}
	want := []string{"ns/high-1", "ns/high-2", "ns/low-1", "ns/low-2", "ns/low-3", "ns/neg"}
	for i, w := range want {
		if got := popNow(t, q).info.key; got != w {
			t.Fatalf("pop %d: got %s, want %s", i, got, w)
		}
	}
}

func TestBackoffDoubles(t *testing.T) {
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60}
	for i, w := range want {
		if got := backoff(i+1, time.Second, 60*time.Second); got != w*time.Second {
			t.Errorf("attempt %d: got %v, want %v", i+1, got, w*time.Second)
		}
	}
}

func TestUnschedulableWaitsForClusterChange(t *testing.T) {
	q, clock := newTestQueue()
	q.add(newPodInfo(makePod("ns", "p")))
	p := popNow(t, q)
	if !q.unschedulable(p, "0/1 nodes are available: 1 Too many pods.") {
		t.Fatal("first failure: got no status write, want one")
	}
	clock.Advance(2 * time.Minute) // long past the back-off, but nothing changed
	assertEmpty(t, q)
	q.moveAll()
	p = popNow(t, q)
	if q.unschedulable(p, "0/1 nodes are available: 1 Too many pods.") {
		t.Error("same message again: got a status write, want none")
	}
	if !q.unschedulable(popAfterMove(t, q, clock), "0/2 nodes are available: 2 Too many pods.") {
		t.Error("new message: got no status write, want one")
	}
}

// popAfterMove moves the unschedulable pods and waits out their back-off.
func popAfterMove(t testing.TB, q *queue, clock *clocktest.Fake) popped {
	t.Helper()
	q.moveAll()
	clock.Advance(time.Minute)
	return popNow(t, q)
}

func TestMoveRespectsBackoff(t *testing.T) {
	q, clock := newTestQueue()
	q.add(newPodInfo(makePod("ns", "p")))
	q.unschedulable(popNow(t, q), "no")
	q.moveAll() // at once: the 1 s back-off is not over
	assertEmpty(t, q)
	clock.Advance(999 * time.Millisecond)
	assertEmpty(t, q)
	clock.Advance(time.Millisecond)
	popNow(t, q)
}

func TestChangeDuringCycleIsNotLost(t *testing.T) {
	q, clock := newTestQueue()
	q.add(newPodInfo(makePod("ns", "p")))
	p := popNow(t, q)
	q.moveAll() // a node arrived while p was being decided on the older snapshot
	q.unschedulable(p, "no")
	clock.Advance(time.Second)
	if got := popNow(t, q).info.key; got != "ns/p" {
		t.Errorf("got %s, want ns/p retried after its back-off", got)
	}
}

func TestUnschedulableFlushedAfterTimeout(t *testing.T) {
	q, clock := newTestQueue()
	q.add(newPodInfo(makePod("ns", "first")))
	q.unschedulable(popNow(t, q), "no")
	clock.Advance(2 * time.Minute)
	q.add(newPodInfo(makePod("ns", "second")))
	q.unschedulable(popNow(t, q), "no")
	clock.Advance(3*time.Minute - time.Second)
	assertEmpty(t, q)
	clock.Advance(time.Second)
	if got := popNow(t, q).info.key; got != "ns/first" {
		t.Fatalf("after 5 min: got %s, want ns/first", got)
	}
	assertEmpty(t, q)
	clock.Advance(2 * time.Minute)
	if got := popNow(t, q).info.key; got != "ns/second" {
		t.Fatalf("after 7 min: got %s, want ns/second", got)
	}
}

func TestPodUpdateRequeuesOnlyOnSpecChange(t *testing.T) {
	q, _ := newTestQueue()
	pod := makePod("ns", "p")
	q.add(newPodInfo(pod))
	q.unschedulable(popNow(t, q), "no")
	status := pod.DeepCopy()
	status.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse}}
	q.add(newPodInfo(status))
	if _, _, unsched, _ := q.stats(); unsched != 1 {
		t.Fatalf("status update: got %d unschedulable, want the pod to stay", unsched)
	}
	spec := pod.DeepCopy()
	spec.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	q.add(newPodInfo(spec))
	if _, backoff, unsched, _ := q.stats(); unsched != 0 || backoff != 1 {
		t.Errorf("spec update: got %d unschedulable, %d backing off; want the pod backing off", unsched, backoff)
	}
}

func TestDeletedPodsLeave(t *testing.T) {
	q, _ := newTestQueue()
	q.add(newPodInfo(makePod("ns", "inflight")))
	q.add(newPodInfo(makePod("ns", "queued")))
	p := popNow(t, q)
	q.delete("ns/queued")
	q.delete(p.info.key)
	if q.unschedulable(p, "no") || q.assumed(p) {
		t.Error("outcome of a deleted pod: got it recorded, want it dropped")
	}
	if _, _, _, total := q.stats(); total != 0 {
		t.Errorf("got %d pods queued, want 0", total)
	}
}

func TestBoundPodNotQueuedAgainByStaleEvent(t *testing.T) {
	q, _ := newTestQueue()
	pod := makePod("ns", "p")
	q.add(newPodInfo(pod))
	p := popNow(t, q)
	q.assumed(p)
	q.bound(p.qp)
	q.add(newPodInfo(pod)) // the watch delivers an older, unbound version late
	if active, _, _, _ := q.stats(); active != 0 {
		t.Errorf("got %d active pods, want the bound pod not queued again", active)
	}
}

func TestPopDoesNotSpin(t *testing.T) {
	q, clock := newTestQueue()
	q.add(newPodInfo(makePod("ns", "p")))
	q.unschedulable(popNow(t, q), "no")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan popped, 1)
	go func() {
		p, _ := q.Pop(ctx)
		got <- p
	}()
	waitFor(t, func() bool { return clock.Waiters() == 1 }) // sleeping until the flush deadline
	time.Sleep(50 * time.Millisecond)
	if w := q.wakeupCount(); w != 0 {
		t.Fatalf("idle: got %d wakeups, want 0", w)
	}
	q.moveAll() // back-off not over: one wakeup, then a sleep until it is
	waitFor(t, func() bool { return q.wakeupCount() == 1 && clock.Waiters() == 2 })
	clock.Advance(time.Second)
	select {
	case p := <-got:
		if p.info == nil || p.info.key != "ns/p" {
			t.Fatalf("got %+v, want ns/p", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Pop did not return after the back-off ended")
	}
	if w := q.wakeupCount(); w != 2 {
		t.Errorf("got %d wakeups, want 2 (the move, the back-off timer)", w)
	}
}

func (q *queue) wakeupCount() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.wakeups
}

// waitFor polls cond for up to 5 s.
func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}
