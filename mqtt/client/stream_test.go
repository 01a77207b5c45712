package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// fakeLink stands in for the broker connection and the API server: it
// records acks and answers relists with the state the test sets (a whole
// view), or with view when set.
type fakeLink struct {
	mu      sync.Mutex
	acks    []string
	state   State
	view    func(since int64) (*mqtt.View, error)
	fetches int
	sinces  []int64
}

func (l *fakeLink) sendAck(t mqtt.AckType, rev int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acks = append(l.acks, fmt.Sprintf("%s %d", t, rev))
}

func (l *fakeLink) fetchView(_ context.Context, since int64) (*mqtt.View, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fetches++
	l.sinces = append(l.sinces, since)
	if l.view != nil {
		return l.view(since)
	}
	return &mqtt.View{Rev: l.state.Rev, Full: true, Changes: l.state.Objects}, nil
}

func (l *fakeLink) connected() bool { return true }

func (l *fakeLink) takeAcks() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.acks
	l.acks = nil
	return out
}

// logApplier is Memory that logs what it was asked, and fails when told.
type logApplier struct {
	*Memory
	mu   sync.Mutex
	log  []string
	fail bool
}

func (a *logApplier) Apply(ctx context.Context, ev mqtt.Event) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail {
		a.fail = false
		a.log = append(a.log, fmt.Sprintf("failed %d", ev.Rev))
		return errors.New("disk full")
	}
	var names []string
	for _, c := range ev.Changes {
		names = append(names, c.Name)
	}
	a.log = append(a.log, fmt.Sprintf("apply %d %v", ev.Rev, names))
	return a.Memory.Apply(ctx, ev)
}

func (a *logApplier) Resync(ctx context.Context, st State) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.log = append(a.log, fmt.Sprintf("resync %d", st.Rev))
	return a.Memory.Resync(ctx, st)
}

func (a *logApplier) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.log
	a.log = nil
	return out
}

// runStream starts a stream holding nothing; the link's state answers its
// first resync (at revision 10, with nothing in view).
func runStream(t *testing.T) (*stream, *fakeLink, *logApplier) {
	t.Helper()
	link := &fakeLink{state: State{Rev: 10}}
	app := &logApplier{Memory: NewMemory()}
	s := &stream{applier: app, link: link, q: newQueue(), log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		gapWait: 100 * time.Millisecond, helloInterval: time.Hour, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go s.run(ctx)
	t.Cleanup(func() { cancel(); <-s.done })
	s.q.push(item{connected: true})
	expect(t, "connect", app, link, []string{"resync 10"}, []string{"ACK 10", "HELLO 10"})
	return s, link, app
}

// expect waits until the applier log and the acks are exactly want.
func expect(t *testing.T, step string, app *logApplier, link *fakeLink, wantLog, wantAcks []string) {
	t.Helper()
	var gotLog, gotAcks []string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		gotLog, gotAcks = append(gotLog, app.take()...), append(gotAcks, link.takeAcks()...)
		if len(gotLog) >= len(wantLog) && len(gotAcks) >= len(wantAcks) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // nothing more may follow
	gotLog, gotAcks = append(gotLog, app.take()...), append(gotAcks, link.takeAcks()...)
	if !reflect.DeepEqual(gotLog, wantLog) || !reflect.DeepEqual(gotAcks, wantAcks) {
		t.Fatalf("%s: got applier %q, acks %q; want %q, %q", step, gotLog, gotAcks, wantLog, wantAcks)
	}
}

func event(rev, prev int64, names ...string) item {
	ev := &mqtt.Event{Type: mqtt.EventChanges, Rev: rev, Prev: prev}
	for _, n := range names {
		ev.Changes = append(ev.Changes, mqtt.Change{Type: mqtt.Modified,
			ObjectRef: mqtt.ObjectRef{Resource: "configmaps", Namespace: "default", Name: n},
			Object:    json.RawMessage(fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"default","resourceVersion":"%d"}}`, n, rev))})
	}
	return item{ev: ev}
}

func TestStreamAppliesInOrderAndSkipsDuplicates(t *testing.T) {
	s, link, app := runStream(t)
	for _, it := range []item{event(12, 10, "a"), event(12, 10, "a"), event(15, 12, "b"), event(11, 5, "c")} {
		s.q.push(it)
	}
	expect(t, "events", app, link, []string{"apply 12 [a]", "apply 15 [b]"}, []string{"ACK 12", "ACK 12", "ACK 15", "ACK 15"})
	if s.rev() != 15 {
		t.Errorf("rev: got %d, want 15", s.rev())
	}
}

func TestStreamGapWaitsForCatchupThenResyncs(t *testing.T) {
	s, link, app := runStream(t)
	s.q.push(event(20, 15, "missed-before"))
	expect(t, "gap", app, link, nil, []string{"HELLO 10"})
	s.q.push(event(22, 10, "catchup"))
	expect(t, "catch-up", app, link, []string{"apply 22 [catchup]"}, []string{"ACK 22"})

	link.mu.Lock()
	link.state = State{Rev: 31}
	link.mu.Unlock()
	s.q.push(event(30, 25, "after-another-gap"))
	expect(t, "no catch-up in time", app, link, []string{"resync 31"}, []string{"HELLO 22", "ACK 31"})
	s.q.push(event(33, 30, "next"))
	expect(t, "after the resync", app, link, []string{"apply 33 [next]"}, []string{"ACK 33"})
}

func TestStreamRelist(t *testing.T) {
	s, link, app := runStream(t)
	link.mu.Lock()
	link.state = State{Rev: 44}
	link.mu.Unlock()
	s.q.push(item{ev: &mqtt.Event{Type: mqtt.EventRelist, Rev: 40, Prev: 10}})
	expect(t, "relist", app, link, []string{"resync 44"}, []string{"ACK 44"})
	// A relist at or below what the node holds is obeyed too (issue 14): the
	// server may have gone back in time (a restored snapshot), so the node
	// asks for its whole view instead of the changes since what it holds.
	link.mu.Lock()
	link.state, link.sinces = State{Rev: 42}, nil
	link.mu.Unlock()
	s.q.push(item{ev: &mqtt.Event{Type: mqtt.EventRelist, Rev: 41, Prev: 40}})
	expect(t, "relist behind the node", app, link, []string{"resync 42"}, []string{"ACK 42"})
	if link.sinces[0] != 0 {
		t.Errorf("relist behind the node asked since %d, want 0 (the whole view)", link.sinces[0])
	}
	if s.rev() != 42 {
		t.Errorf("rev after the relist: got %d, want the server's 42", s.rev())
	}
}

func TestStreamLeavesOutChangesOlderThanTheResync(t *testing.T) {
	link := &fakeLink{state: State{Rev: 10, Objects: []mqtt.Change{{Type: mqtt.Added,
		ObjectRef: mqtt.ObjectRef{Resource: "configmaps", Namespace: "default", Name: "a"},
		Object:    json.RawMessage(`{"metadata":{"name":"a","namespace":"default","resourceVersion":"14"}}`)}}}}
	app := &logApplier{Memory: NewMemory()}
	s := &stream{applier: app, link: link, q: newQueue(), log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		gapWait: time.Second, helloInterval: time.Hour, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go s.run(ctx)
	defer func() { cancel(); <-s.done }()
	s.q.push(event(12, 3, "a", "b")) // holding nothing: resync first
	expect(t, "stale change", app, link, []string{"resync 10", "apply 12 [b]"}, []string{"ACK 10", "ACK 12"})
	s.q.push(event(16, 12, "a"))
	expect(t, "newer change", app, link, []string{"apply 16 [a]"}, []string{"ACK 16"})
	if o, _ := app.Get(mqtt.ObjectRef{Resource: "configmaps", Namespace: "default", Name: "a"}); o.ResourceVersion != 16 {
		t.Errorf("configmap a: got resourceVersion %d, want 16", o.ResourceVersion)
	}
}

func TestStreamResyncsWhenApplyFails(t *testing.T) {
	s, link, app := runStream(t)
	app.mu.Lock()
	app.fail = true
	app.mu.Unlock()
	link.mu.Lock()
	link.state = State{Rev: 13}
	link.mu.Unlock()
	s.q.push(event(12, 10, "a"))
	expect(t, "failed apply", app, link, []string{"failed 12", "resync 13"}, []string{"ACK 13"})
}
