package registry

import (
	"context"
	"testing"
	"time"
)

// funcCtx is a context whose values cannot be compared with ==.
type funcCtx struct {
	context.Context
	f func()
}

func TestWaitBoundShared(t *testing.T) {
	var w waitBound
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	a := w.bounded(parent)
	if b := w.bounded(parent); b != a {
		t.Errorf("second wait under the same context: got a new bound, want the first one shared")
	}
	deadline, ok := a.Deadline()
	if !ok || deadline.Before(start.Add(cacheWait)) || deadline.After(time.Now().Add(cacheWait+cacheWaitShared)) {
		t.Errorf("deadline: got %v (set %v), want %v to %v from %v", deadline, ok, cacheWait, cacheWait+cacheWaitShared, start)
	}
	other := w.bounded(context.Background())
	if other == a {
		t.Errorf("wait under another context: got the first one's bound, want its own")
	}
	odd := funcCtx{Context: context.Background(), f: func() {}}
	w.bounded(odd)
	w.bounded(odd) // no panic comparing it
	cancel()
	select {
	case <-a.Done():
	case <-time.After(time.Second):
		t.Fatal("bound outlived its parent: got not done, want done")
	}
}

func TestWaitBoundRenewed(t *testing.T) {
	var w waitBound
	parent := context.Background()
	a := w.bounded(parent)
	b := w.last.Load()
	b.deadline = time.Now().Add(cacheWait - time.Millisecond) // as if made a while ago
	if got := w.bounded(parent); got == a {
		t.Errorf("bound ending within cacheWait: got it shared, want a new one")
	}
}
