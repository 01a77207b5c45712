package informer_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/registry"
)

var (
	podsRes, _ = api.Lookup("", "v1", "pods")
	cmsRes, _  = api.Lookup("", "v1", "configmaps")
)

type env struct {
	t     testing.TB
	ctx   context.Context
	store datastore.Store
	c     *registry.Client
	cache *informer.Cache
}

func newEnv(t testing.TB) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	store, err := datastore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	t.Cleanup(cancel)
	reg, err := registry.New(ctx, registry.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, ctx: ctx, store: store, c: reg.Client(), cache: informer.New(store, informer.Config{})}
}

func (e *env) start() {
	e.t.Helper()
	e.cache.Start(e.ctx)
	e.t.Cleanup(e.cache.Stop)
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	if !e.cache.WaitForSync(ctx) {
		e.t.Fatal("cache did not sync")
	}
}

func (e *env) pod(name, node string) api.Object {
	e.t.Helper()
	out, err := e.c.Create(e.ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// seen records what a handler was told.
type seen struct {
	mu  sync.Mutex
	log []string
}

func (s *seen) handler() informer.Handler {
	add := func(v string) { s.mu.Lock(); s.log = append(s.log, v); s.mu.Unlock() }
	return informer.Handler{
		OnAdd:    func(o api.Object) { add("add " + o.GetName()) },
		OnUpdate: func(_, o api.Object) { add("update " + o.GetName()) },
		OnDelete: func(o api.Object) { add("delete " + o.GetName()) },
	}
}

func (s *seen) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func eventually(t *testing.T, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestOneWatchFeedsTheInformers: one list and one watch of the registry
// keep every informer asked for before Start current; kinds without an
// informer are never decoded.
func TestOneWatchFeedsTheInformers(t *testing.T) {
	e := newEnv(t)
	e.pod("before", "pi-1")
	pods := e.cache.Informer(podsRes)
	e.start()
	if got := len(pods.ByIndex(informer.IndexNode, "pi-1")); got != 1 {
		t.Fatalf("pods on pi-1 after the list: got %d, want 1", got)
	}
	// Written straight to the store, so that every decode counted is the
	// cache's.
	decodes := api.Decodes()
	for i := 0; i < 20; i++ {
		cm := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-%d","namespace":"default"}}`, i)
		if _, err := e.store.Create(e.ctx, cmsRes.Key("default", fmt.Sprintf("cm-%d", i)), []byte(cm)); err != nil {
			t.Fatal(err)
		}
	}
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"after","namespace":"default"},"spec":{"nodeName":"pi-1","containers":[{"name":"c","image":"busybox"}]}}`
	if _, err := e.store.Create(e.ctx, podsRes.Key("default", "after"), []byte(pod)); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() error {
		if n := len(pods.ByIndex(informer.IndexNode, "pi-1")); n != 2 {
			return fmt.Errorf("pods on pi-1: got %d, want 2", n)
		}
		return nil
	})
	// One decode, for the pod; none for the ConfigMaps, which have no informer.
	if d := api.Decodes() - decodes; d != 1 {
		t.Fatalf("decodes for 20 ConfigMaps and 1 pod: got %d, want 1", d)
	}
}

// TestViewReplaysAndRemoves: a View's handlers see the objects already
// held as adds when it starts, then every change, and nothing after Stop.
func TestViewReplaysAndRemoves(t *testing.T) {
	e := newEnv(t)
	e.cache.Informer(podsRes)
	e.start()
	e.pod("a", "pi-1")
	e.pod("b", "")
	eventually(t, func() error {
		if n := e.cache.Informer(podsRes).Len(); n != 2 {
			return fmt.Errorf("cached pods: got %d, want 2", n)
		}
		return nil
	})
	v := e.cache.View()
	var s seen
	v.Informer(podsRes).AddHandler(s.handler())
	if got := s.get(); len(got) != 0 {
		t.Fatalf("before the view started, the handler saw %v", got)
	}
	v.Start(e.ctx)
	got := s.get()
	sort.Strings(got)
	if fmt.Sprint(got) != "[add a add b]" {
		t.Fatalf("replayed: got %v, want [add a add b]", got)
	}
	// Grace 0: a is bound to a node, whose agent would otherwise finish
	// the deletion (a graceful delete is an update first).
	zero := int64(0)
	if err := e.c.Delete(e.ctx, podsRes, "default", "a", controllers.DeleteOptions{GracePeriod: &zero}); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() error {
		if g := s.get(); len(g) != 3 || g[2] != "delete a" {
			return fmt.Errorf("handler saw %v, want the replay then delete a", g)
		}
		return nil
	})
	v.Stop()
	e.pod("c", "")
	eventually(t, func() error {
		if _, ok := e.cache.Informer(podsRes).Get("default", "c"); !ok {
			return fmt.Errorf("pod c not cached yet")
		}
		return nil
	})
	if g := s.get(); len(g) != 3 {
		t.Fatalf("after Stop the handler saw %v", g[3:])
	}
}

// TestLateInformerFollowsItsResource: an informer asked for after Start
// lists and follows its resource by itself.
func TestLateInformerFollowsItsResource(t *testing.T) {
	e := newEnv(t)
	e.cache.Informer(podsRes)
	e.start()
	if _, err := e.c.Create(e.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default"}}); err != nil {
		t.Fatal(err)
	}
	cms := e.cache.Informer(cmsRes)
	if _, ok := e.cache.Serves(cmsRes); ok {
		t.Fatal("a late informer claims consistent reads")
	}
	eventually(t, func() error {
		if _, ok := cms.Get("default", "x"); !ok {
			return fmt.Errorf("late informer lacks configmap x")
		}
		return nil
	})
}

// TestWaitForRevisionAsksForProgress: a revision written outside the
// registry (no event reaches the cache) is confirmed by a progress answer.
func TestWaitForRevisionAsksForProgress(t *testing.T) {
	e := newEnv(t)
	e.cache.Informer(podsRes)
	e.start()
	rev, err := e.store.Create(e.ctx, "/bramble/elsewhere", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
	defer cancel()
	if err := e.cache.WaitForRevision(ctx, rev); err != nil {
		t.Fatalf("WaitForRevision(%d): %v (cache at %d)", rev, err, e.cache.Revision())
	}
	p := e.pod("fresh", "pi-2")
	prev, _ := registry.ParseResourceVersion(p.GetResourceVersion())
	if err := e.cache.WaitForRevision(ctx, prev); err != nil {
		t.Fatal(err)
	}
	inf, ok := e.cache.Serves(podsRes)
	if !ok {
		t.Fatal("the shared pods informer does not serve consistent reads")
	}
	e.cache.Read(func(rev int64) {
		if _, ok := inf.Get("default", "fresh"); !ok || rev < prev {
			t.Fatalf("at revision %d (want >= %d) the pod is cached: %v", rev, prev, ok)
		}
	})
}
