package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// openStore opens a real SQLite datastore in a temporary directory.
func openStore(t testing.TB, cfg datastore.SQLiteConfig) *datastore.SQLite {
	t.Helper()
	store, err := datastore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "state.db"), cfg)
	if err != nil {
		t.Fatalf("open datastore: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// putObject writes obj to the store as the API server would: JSON without
// a resourceVersion, under res.Key.
func putObject(t testing.TB, store datastore.Store, obj api.Object) {
	t.Helper()
	res := podsResource
	if _, ok := obj.(*corev1.Node); ok {
		res = nodesResource
	}
	obj.SetResourceVersion("")
	data, err := api.Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	key := res.Key(obj.GetNamespace(), obj.GetName())
	ctx := context.Background()
	if cur, err := store.Get(ctx, key); err == nil {
		_, err = store.Update(ctx, key, data, cur.ModRevision)
		if err != nil {
			t.Fatalf("update %s: %v", key, err)
		}
		return
	}
	if _, err := store.Create(ctx, key, data); err != nil {
		t.Fatalf("create %s: %v", key, err)
	}
}

// getPod reads a pod back from the store.
func getPod(ctx context.Context, store datastore.Store, ns, name string) (*corev1.Pod, int64, error) {
	kv, err := store.Get(ctx, podsResource.Key(ns, name))
	if err != nil {
		return nil, 0, err
	}
	obj, _, err := api.DecodeJSON(podsResource, kv.Value, false)
	if err != nil {
		return nil, 0, err
	}
	return obj.(*corev1.Pod), kv.ModRevision, nil
}

// storeBinder is the test's stand-in for the API server: it writes
// spec.nodeName and the PodScheduled condition straight into the store,
// answering like the server does (404 for a missing pod, 409 for a bound
// one), and keeps events in memory.
type storeBinder struct {
	store datastore.Store
	mu    sync.Mutex
	// events lists "type reason pod: message".
	events []string
	// failNext makes the next Bind calls fail with a server error.
	failNext int
}

var podsGR = schema.GroupResource{Resource: "pods"}

func (b *storeBinder) Bind(ctx context.Context, pod *corev1.Pod, node string) error {
	b.mu.Lock()
	fail := b.failNext > 0
	b.failNext--
	b.mu.Unlock()
	if fail {
		return apierrors.NewInternalError(errors.New("injected failure"))
	}
	return b.update(ctx, pod, func(cur *corev1.Pod) error {
		if cur.Spec.NodeName != "" {
			return apierrors.NewConflict(podsGR, cur.Name, fmt.Errorf("pod %s is already assigned to node %q", cur.Name, cur.Spec.NodeName))
		}
		cur.Spec.NodeName = node
		setScheduled(cur, corev1.ConditionTrue, "", "")
		return nil
	})
}

func (b *storeBinder) Unschedulable(ctx context.Context, pod *corev1.Pod, message string) error {
	return b.update(ctx, pod, func(cur *corev1.Pod) error {
		setScheduled(cur, corev1.ConditionFalse, corev1.PodReasonUnschedulable, message)
		return nil
	})
}

func (b *storeBinder) Event(ctx context.Context, pod *corev1.Pod, eventType, reason, message string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events = append(b.events, fmt.Sprintf("%s %s %s/%s: %s", eventType, reason, pod.Namespace, pod.Name, message))
	return nil
}

func (b *storeBinder) eventsOf(ns, name, reason string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, e := range b.events {
		var typ, r, who string
		fmt.Sscanf(e, "%s %s %s", &typ, &r, &who)
		if r == reason && who == ns+"/"+name+":" {
			out = append(out, e)
		}
	}
	return out
}

// update applies change to the stored pod with optimistic concurrency.
func (b *storeBinder) update(ctx context.Context, pod *corev1.Pod, change func(*corev1.Pod) error) error {
	for {
		cur, rev, err := getPod(ctx, b.store, pod.Namespace, pod.Name)
		if errors.Is(err, datastore.ErrNotFound) {
			return apierrors.NewNotFound(podsGR, pod.Name)
		}
		if err != nil {
			return err
		}
		if err := change(cur); err != nil {
			return err
		}
		data, err := api.Encode(cur)
		if err != nil {
			return err
		}
		_, err = b.store.Update(ctx, podsResource.Key(cur.Namespace, cur.Name), data, rev)
		if !errors.Is(err, datastore.ErrConflict) {
			return err
		}
	}
}

func setScheduled(p *corev1.Pod, st corev1.ConditionStatus, reason, msg string) {
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: st, Reason: reason, Message: msg}
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodScheduled {
			p.Status.Conditions[i] = cond
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, cond)
}

// startScheduler runs a Scheduler on store until the test ends.
func startScheduler(t testing.TB, store datastore.Store, b Binder) *Scheduler {
	t.Helper()
	s, err := New(Config{Store: store, Binder: b, Logger: testLogger(t),
		InitialBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// waitPod polls the stored pod until cond holds, for up to 10 s.
func waitPod(t testing.TB, store datastore.Store, ns, name string, what string, cond func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, _, err := getPod(context.Background(), store, ns, name)
		if err == nil && cond(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s/%s: got %+v (err %v), want %s within 10 s", ns, name, p, err, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// testLogger logs through t.Log, so only failing tests show it.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tLogWriter struct{ t testing.TB }

func (w tLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func isBound(p *corev1.Pod) bool { return p.Spec.NodeName != "" }
