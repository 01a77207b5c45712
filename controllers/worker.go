package controllers

import (
	"context"
	"log/slog"
	"sync"

	"github.com/bramble-edge/bramble/api"
)

// SyncFunc brings the world in line with the object named by key. It is
// idempotent; an error re-queues the key with back-off.
type SyncFunc func(ctx context.Context, key string) error

// RunWorkers runs n workers taking keys from q until ctx ends, then shuts
// q down and waits for the workers to finish their current keys.
func RunWorkers(ctx context.Context, q *Queue, n int, log *slog.Logger, fn SyncFunc) {
	runWorkers(ctx, q, n, log, fn, "")
}

// runWorkers is RunWorkers; name, when set, labels the queue's metrics.
func runWorkers(ctx context.Context, q *Queue, n int, log *slog.Logger, fn SyncFunc, name string) {
	if name != "" {
		fn = instrumented(q, name, fn)
	}
	var wg sync.WaitGroup
	for range max(n, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for processNext(ctx, q, log, fn) {
			}
		}()
	}
	<-ctx.Done()
	q.ShutDown()
	wg.Wait()
}

// processNext handles one key; false once the queue is shut down.
func processNext(ctx context.Context, q *Queue, log *slog.Logger, fn SyncFunc) bool {
	key, shutdown := q.Get()
	if shutdown {
		return false
	}
	defer q.Done(key)
	if err := fn(ctx, key); err != nil {
		if ctx.Err() == nil {
			log.Debug("sync failed; will retry", "key", key, "retries", q.NumRequeues(key), "err", err)
			q.AddRateLimited(key)
		}
		return true
	}
	q.Forget(key)
	return true
}

// EnqueueHandler is a Handler that queues the changed object's own key.
func EnqueueHandler(q *Queue) Handler {
	return Handler{
		OnAdd:    func(o api.Object) { q.Add(KeyOf(o)) },
		OnUpdate: func(_, o api.Object) { q.Add(KeyOf(o)) },
		OnDelete: func(o api.Object) { q.Add(KeyOf(o)) },
	}
}

// Loop is one work queue and the sync its workers run.
type Loop struct {
	Queue *Queue
	Sync  SyncFunc
}

// Run is a controller's Run: it waits until the cache has synced, then
// runs the recorder and workers on each loop until ctx ends, and returns
// once they all have.
func Run(ctx context.Context, cache *Cache, rec *Recorder, log *slog.Logger, workers int, loops ...Loop) {
	if !cache.WaitForSync(ctx) {
		return
	}
	log.Info("started", "workers", workers)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rec.Run(ctx)
	}()
	for i, l := range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runWorkers(ctx, l.Queue, workers, log, l.Sync, loopName(rec, i, len(loops)))
		}()
	}
	wg.Wait()
}

// ChangeHandler is a Handler that hands every change to changed: old is
// nil but for updates, deleted is set for deletes.
func ChangeHandler(changed func(old, cur api.Object, deleted bool)) Handler {
	return Handler{
		OnAdd:    func(o api.Object) { changed(nil, o, false) },
		OnUpdate: func(old, cur api.Object) { changed(old, cur, false) },
		OnDelete: func(o api.Object) { changed(nil, o, true) },
	}
}

// OwnerChanged is what a controller does with a change to an object it
// controls (a pod of its set): it tells exp that the controlling
// apiVersion/kind object's create or delete of cur was seen and queues
// that object's key, and the old controller's key too after an update.
// It reports whether cur has a controller of that kind.
func OwnerChanged(q *Queue, exp *Expectations, apiVersion, kind string, old, cur api.Object, deleted bool) bool {
	key, owned := ControllerKey(cur, apiVersion, kind)
	if owned {
		exp.Observed(key, cur.GetName(), deleted)
		q.Add(key)
	}
	if old == nil {
		return owned
	}
	if key, ok := ControllerKey(old, apiVersion, kind); ok {
		q.Add(key)
	}
	return owned
}
