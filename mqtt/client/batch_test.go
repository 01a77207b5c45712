package client

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// batchApplier is a logApplier that takes batches; its first batch waits
// for gate, so Events pile up in the queue behind it.
type batchApplier struct {
	*logApplier
	gate chan struct{}
}

func (a *batchApplier) ApplyBatch(ctx context.Context, evs []mqtt.Event) error {
	if a.gate != nil {
		<-a.gate
		a.gate = nil
	}
	revs := make([]int64, 0, len(evs))
	for _, ev := range evs {
		revs = append(revs, ev.Rev)
		if err := a.Memory.Apply(ctx, ev); err != nil {
			return err
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.log = append(a.log, fmt.Sprintf("batch %v", revs))
	return nil
}

func TestStreamBatchesQueuedEventsThatFollowOn(t *testing.T) {
	link := &fakeLink{state: State{Rev: 10}}
	app := &batchApplier{logApplier: &logApplier{Memory: NewMemory()}, gate: make(chan struct{})}
	s := &stream{applier: app, link: link, q: newQueue(), log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		gapWait: time.Hour, helloInterval: time.Hour, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go s.run(ctx)
	defer func() { cancel(); <-s.done }()
	s.q.push(item{connected: true})
	expect(t, "connect", app.logApplier, link, []string{"resync 10"}, []string{"ACK 10", "HELLO 10"})

	s.q.push(event(11, 10, "a")) // taken at once; its batch waits for the gate
	waitQueue(t, s.q, 0)
	for _, it := range []item{event(12, 11, "b"), event(14, 12, "c"), event(15, 14, "d"), event(20, 18, "after-a-gap")} {
		s.q.push(it)
	}
	close(app.gate)
	expect(t, "batches", app.logApplier, link, []string{"batch [11]", "batch [12 14 15]"}, []string{"ACK 11", "ACK 15", "HELLO 15"})
	if s.rev() != 15 {
		t.Errorf("rev: got %d, want 15", s.rev())
	}
}

func waitQueue(t *testing.T, q *queue, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for q.len() != n {
		if time.Now().After(deadline) {
			t.Fatalf("queue length: got %d, want %d", q.len(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
