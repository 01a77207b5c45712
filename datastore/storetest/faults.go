package storetest

import (
	"context"
	"strings"
	"sync"

	"github.com/bramble-edge/bramble/datastore"
)

// Faults wraps a real Store and breaks its watches on demand, so a test
// proves a watcher survives what a store does under load (it cuts off a
// watch that fell behind) and when something is wrong (Watch fails).
// Everything else goes straight to the wrapped Store.
type Faults struct {
	datastore.Store

	mu       sync.Mutex
	failures map[string]int   // prefix -> Watch calls still to fail
	err      error            // what they fail with
	open     map[*cutoff]bool // live watches
	opened   map[string]int   // prefix -> watches opened
}

type cutoff struct {
	prefix string
	cut    chan struct{}
	done   chan struct{} // closed once the wrapped watch has ended too
}

// NewFaults wraps st; it breaks nothing until told.
func NewFaults(st datastore.Store) *Faults {
	return &Faults{Store: st, failures: map[string]int{}, open: map[*cutoff]bool{}, opened: map[string]int{}}
}

// FailWatches makes the next n Watch calls on a prefix starting with
// prefix fail with err.
func (f *Faults) FailWatches(prefix string, n int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[prefix] += n
	f.err = err
}

// Heal drops the failures of FailWatches(prefix, ...) still to come.
func (f *Faults) Heal(prefix string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.failures, prefix)
}

// Pending is how many failures of FailWatches(prefix, ...) are still to
// come.
func (f *Faults) Pending(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failures[prefix]
}

// Opened is how many watches on a prefix starting with prefix were opened.
func (f *Faults) Opened(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for p, c := range f.opened {
		if strings.HasPrefix(p, prefix) {
			n += c
		}
	}
	return n
}

// CutWatches closes every live watch on a prefix starting with prefix, as
// the store does to a slow watcher, and says how many it closed.
func (f *Faults) CutWatches(prefix string) int {
	f.mu.Lock()
	var cut []*cutoff
	for w := range f.open {
		if strings.HasPrefix(w.prefix, prefix) {
			close(w.cut)
			delete(f.open, w)
			cut = append(cut, w)
		}
	}
	f.mu.Unlock()
	// The wrapped watches share their progress requests with the watches
	// that replace them: one still running could take a request meant for
	// its successor. Return only once they have ended, as a store's own
	// cut watch has when its channel closes.
	for _, w := range cut {
		<-w.done
	}
	return len(cut)
}

// Watch is the wrapped Store's Watch, unless a failure is due.
func (f *Faults) Watch(ctx context.Context, prefix string, afterRev int64) (<-chan []datastore.Event, error) {
	return f.WatchProgress(ctx, prefix, afterRev, nil)
}

// WatchProgress is the wrapped Store's WatchProgress, unless a failure is
// due; the watch it returns can be cut.
func (f *Faults) WatchProgress(ctx context.Context, prefix string, afterRev int64, requests <-chan struct{}) (<-chan []datastore.Event, error) {
	if err := f.take(prefix); err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(ctx)
	in, err := f.Store.WatchProgress(wctx, prefix, afterRev, requests)
	if err != nil {
		cancel()
		return nil, err
	}
	w := &cutoff{prefix: prefix, cut: make(chan struct{}), done: make(chan struct{})}
	f.mu.Lock()
	f.open[w] = true
	f.opened[prefix]++
	f.mu.Unlock()
	out := make(chan []datastore.Event)
	go func() {
		defer close(w.done)
		relay(wctx, in, out, w.cut)
		cancel()
		for range in { // the wrapped watch ends with its context
		}
		f.forget(w)
		close(out)
	}()
	return out, nil
}

// relay copies in to out until in closes, ctx ends or cut closes.
func relay(ctx context.Context, in <-chan []datastore.Event, out chan<- []datastore.Event, cut <-chan struct{}) {
	for {
		select {
		case evs, ok := <-in:
			if !ok {
				return
			}
			select {
			case out <- evs:
			case <-cut:
				return
			case <-ctx.Done():
				return
			}
		case <-cut:
			return
		}
	}
}

// take consumes one due failure of prefix, if any.
func (f *Faults) take(prefix string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for p, n := range f.failures {
		if n > 0 && strings.HasPrefix(prefix, p) {
			f.failures[p] = n - 1
			return f.err
		}
	}
	return nil
}

func (f *Faults) forget(w *cutoff) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.open, w)
}
