// Package controllertest runs controllers against the real parts in tests:
// a SQLite datastore in a temporary folder and the server's registry (the
// admission path every writer goes through) in process, with a shared
// cache over the datastore's watch.
package controllertest

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/registry"
)

// Env is one test's cluster state without HTTP: the store, the Client that
// writes through admission, and a cache controllers register with before
// Start.
type Env struct {
	T        testing.TB
	Store    datastore.Store
	Registry *registry.Registry
	Client   controllers.Client
	Cache    *controllers.Cache
	Log      *slog.Logger
	Ctx      context.Context
}

// New opens a fresh store and API; everything stops when the test ends.
func New(t testing.TB) *Env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"),
		datastore.SQLiteConfig{Logger: log, CompactInterval: -1})
	if err != nil {
		cancel()
		t.Fatalf("open datastore: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	t.Cleanup(cancel) // cleanups run last first: the cache stops before the store closes
	reg, err := registry.New(ctx, registry.Config{Store: store, Log: log})
	if err != nil {
		t.Fatalf("registry.New: %v", err)
	}
	return &Env{T: t, Store: store, Registry: reg, Client: reg.Client(),
		Cache: controllers.NewCache(store, log), Log: log, Ctx: ctx}
}

// Start starts the cache and waits until it has synced.
func (e *Env) Start() {
	e.T.Helper()
	e.Cache.Start(e.Ctx)
	e.T.Cleanup(e.Cache.Stop) // before the store closes
	ctx, cancel := context.WithTimeout(e.Ctx, 30*time.Second)
	defer cancel()
	if !e.Cache.WaitForSync(ctx) {
		e.T.Fatal("cache did not sync within 30s")
	}
}

// Go runs run in a goroutine with a context that ends when stop is called
// or the test ends; stop waits until run has returned (calling it again
// is harmless). Controllers and simulated agents run so in tests.
func (e *Env) Go(run func(ctx context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(e.Ctx)
	done := make(chan struct{})
	go func() { defer close(done); run(ctx) }()
	stop = func() { cancel(); <-done }
	e.T.Cleanup(stop)
	return stop
}

// Eventually polls cond every 20 ms until it returns nil, failing the test
// with cond's last error after timeout.
func (e *Env) Eventually(timeout time.Duration, cond func() error) {
	e.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			e.T.Fatalf("after %v: %v", timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Resource looks up a served resource by group and plural name.
func Resource(group, name string) *api.Resource {
	version := "v1"
	r, ok := api.Lookup(group, version, name)
	if !ok {
		panic("controllertest: no resource " + group + "/" + name)
	}
	return r
}

// MustCreate creates obj through admission and returns the stored object,
// failing the test on error.
func MustCreate[T api.Object](e *Env, obj T) T {
	e.T.Helper()
	out, err := e.Client.Create(e.Ctx, obj)
	if err != nil {
		e.T.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
	return out.(T)
}

// MustGet reads the stored object, failing the test on error.
func MustGet[T api.Object](e *Env, res *api.Resource, namespace, name string) T {
	e.T.Helper()
	out, err := e.Client.Get(e.Ctx, res, namespace, name)
	if err != nil {
		e.T.Fatalf("get %s %s/%s: %v", res.Name, namespace, name, err)
	}
	return out.(T)
}

// Edit applies change to the stored object and updates it, reading it
// again and retrying on conflicts (20 tries), failing the test otherwise.
func Edit[T api.Object](e *Env, res *api.Resource, namespace, name string, change func(T)) {
	e.T.Helper()
	for range 20 {
		obj := MustGet[T](e, res, namespace, name)
		change(obj)
		_, err := e.Client.Update(e.Ctx, obj)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			e.T.Fatalf("update %s %s/%s: %v", res.Name, namespace, name, err)
		}
	}
	e.T.Fatalf("update %s %s/%s: still conflicting after 20 tries", res.Name, namespace, name)
}
