package policy

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// Enforcer keeps the kernel's policy rules in step with the local store and
// the node's pods: told that something changed, it compiles again and, when
// the rules differ from those it programmed last, applies them in one
// transaction. A failed apply is retried with a growing pause. The rules
// stay in place when it stops: pods keep running and stay fenced while the
// agent restarts (Applier.Remove takes them out, for uninstall).
type Enforcer struct {
	applier *Applier
	src     Source
	pods    func() []Pod
	log     *slog.Logger

	kick   chan struct{}
	last   [sha256.Size]byte
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewEnforcer makes an Enforcer; pods gives the node's own pods (with the
// addresses their sandboxes got) each time it compiles.
func NewEnforcer(a *Applier, src Source, pods func() []Pod, log *slog.Logger) *Enforcer {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Enforcer{applier: a, src: src, pods: pods, log: log, kick: make(chan struct{}, 1)}
}

// Relevant tells whether applied changes concern the policy rules.
func Relevant(changes []mqtt.Change) bool {
	for _, c := range changes {
		switch c.Resource {
		case mqtt.ResourcePods, mqtt.ResourcePeerPods, "networkpolicies", "namespaces":
			return true
		}
	}
	return false
}

// Changed asks for a compile; it never blocks, and asks made while one runs
// make one more.
func (e *Enforcer) Changed() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// Start programs the rules from what the store holds now (the server need
// not be there) and then on every Changed, until Stop or ctx ends.
func (e *Enforcer) Start(ctx context.Context) {
	ctx, e.cancel = context.WithCancel(ctx)
	e.Changed()
	e.wg.Add(1)
	go e.run(ctx)
}

// Stop ends the loop and waits for it; the rules stay.
func (e *Enforcer) Stop() {
	if e.cancel != nil {
		e.cancel()
		e.wg.Wait()
	}
}

func (e *Enforcer) run(ctx context.Context) {
	defer e.wg.Done()
	pause := 100 * time.Millisecond
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.kick:
		case <-retry:
		}
		retry = nil
		if err := e.sync(ctx); err != nil {
			e.log.Error("programming NetworkPolicy rules failed; retrying", "err", err, "in", pause)
			retry = time.After(pause)
			pause = min(2*pause, 30*time.Second)
			continue
		}
		pause = 100 * time.Millisecond
	}
}

// sync compiles and applies when the rules changed.
func (e *Enforcer) sync(ctx context.Context) error {
	in, err := InputFrom(e.src, e.pods())
	if err != nil {
		return err
	}
	rs := Compile(in)
	for _, p := range rs.Problems {
		e.log.Warn("NetworkPolicy part compiled to match nothing", "problem", p)
	}
	sum, err := digest(rs)
	if err != nil || sum == e.last {
		return err
	}
	if err := e.applier.Apply(ctx, rs); err != nil {
		return err
	}
	e.last = sum
	return nil
}

func digest(rs *Ruleset) ([sha256.Size]byte, error) {
	b, err := json.Marshal(rs)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(b), nil
}
