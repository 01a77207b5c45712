// Package diskhealth turns the datastore's full-disk state into Events an
// operator sees with `kubectl get events`: a Warning DatastoreOutOfSpace
// when writes start failing for lack of disk space, and a Normal
// DatastoreWritable when they succeed again. /readyz reports the same
// state as it is (server/apiserver/nonresource.go).
package diskhealth

import (
	"context"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// Event reasons.
const (
	ReasonOutOfSpace = "DatastoreOutOfSpace"
	ReasonWritable   = "DatastoreWritable"
)

// component is the Events' source.
const component = "bramble-datastore"

// Source is the datastore's side: whether it can write, and how many write
// batches ever failed for lack of space (*datastore.SQLite is one).
type Source interface {
	Health() error
	SpaceFailures() uint64
}

// Creator writes an object; the registry's in-process client is one.
type Creator interface {
	Create(ctx context.Context, obj api.Object) (api.Object, error)
}

// Config tunes a Watcher; zero values get defaults.
type Config struct {
	Interval time.Duration // how often the state is read (default 5 s)
	Logger   *slog.Logger
}

// Watcher reads the Source every Interval and records a Warning when writes
// failed for lack of space since the last look (however briefly), and a
// Normal Event once the datastore is healthy again after one. An Event about a full disk usually cannot be written while the
// disk is full: it is retried every Interval until it is (SQLite reuses
// freed pages, so a small write can succeed before a large one does), and
// it keeps the time writes started failing.
type Watcher struct {
	src     Source
	client  Creator
	cfg     Config
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	seen    uint64        // SpaceFailures at the last look
	warned  bool          // a Warning was recorded, no Normal yet
	pending *corev1.Event // an Event still to write
}

// New makes a Watcher of src writing Events through client.
func New(src Source, client Creator, cfg Config) *Watcher {
	if cfg.Interval <= 0 {
		cfg.Interval = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Watcher{src: src, client: client, cfg: cfg, seen: src.SpaceFailures()}
}

// Start runs the watcher until Stop.
func (w *Watcher) Start(ctx context.Context) {
	ctx, w.cancel = context.WithCancel(ctx)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		tick := time.NewTicker(w.cfg.Interval)
		defer tick.Stop()
		for {
			w.check(ctx, time.Now())
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// Stop ends the watcher and waits for it.
func (w *Watcher) Stop() {
	if w.cancel != nil {
		w.cancel()
	}
	w.wg.Wait()
}

// check notes a change of state as an Event and tries to write the
// pending one.
func (w *Watcher) check(ctx context.Context, now time.Time) {
	failures, err := w.src.SpaceFailures(), w.src.Health()
	switch {
	case failures > w.seen && !w.warned:
		w.warned, w.pending = true, w.event(true, err, now)
	case w.warned && err == nil:
		w.warned, w.pending = false, w.event(false, nil, now)
	}
	w.seen = failures
	if w.pending == nil {
		return
	}
	if _, cerr := w.client.Create(ctx, w.pending); cerr != nil {
		w.cfg.Logger.Debug("datastore health event not written yet", "reason", w.pending.Reason, "err", cerr)
		return
	}
	w.pending = nil
}

// event is what a change of state says, about the kube-system Namespace
// (the cluster's own; the Event lands in "default", where `kubectl get
// events` looks first).
func (w *Watcher) event(full bool, err error, now time.Time) *corev1.Event {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: metav1.NamespaceSystem}}
	typ, reason, msg := corev1.EventTypeNormal, ReasonWritable, "the datastore writes again: disk space was freed"
	if full {
		typ, reason = corev1.EventTypeWarning, ReasonOutOfSpace
		msg = "the datastore cannot write, its disk is full; writes are refused with 507 until space is freed"
		if err != nil {
			msg += ": " + err.Error()
		}
	}
	ev, nerr := api.NewEvent(ns, component, typ, reason, msg, now)
	if nerr != nil {
		w.cfg.Logger.Error("datastore health event", "err", nerr)
		return nil
	}
	return ev
}
