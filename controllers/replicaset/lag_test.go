package replicaset

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/datastore"
)

// TestLaggingCacheNeverOvershoots slows the pods informer down (a handler
// that sleeps, registered before the controller's, holds every later pod
// change out of the cache) while the controller's own status writes keep
// queueing syncs. Every committed change is then checked in revision
// order: a pod creation may never take the pod count above spec.replicas,
// and a deletion may never take it below.
func TestLaggingCacheNeverOvershoots(t *testing.T) {
	h := start(t, func(h *harness) {
		slow := func(api.Object) { time.Sleep(15 * time.Millisecond) }
		h.pods.AddHandler(controllers.Handler{OnAdd: slow, OnUpdate: func(_, o api.Object) { slow(o) }, OnDelete: slow})
	})
	check := watchReplicaInvariant(t, h, "lag")
	rs := h.createRS("lag", 3, 0)
	h.waitOwned(rs, 3)
	for _, n := range []int32{8, 2, 12, 5} {
		h.scale("lag", n)
		h.waitOwned(rs, int(n))
		h.waitStatus("lag", wantCounts(n, 0, 0))
	}
	check()
}

// watchReplicaInvariant watches the store from now on and returns a func
// that fails the test if the ReplicaSet name's pods ever overshot.
func watchReplicaInvariant(t *testing.T, h *harness, name string) func() {
	t.Helper()
	rev, err := h.Store.CurrentRevision(h.Ctx)
	if err != nil {
		t.Fatalf("current revision: %v", err)
	}
	ctx, cancel := context.WithCancel(h.Ctx)
	ch, err := h.Store.Watch(ctx, "/registry/", rev)
	if err != nil {
		t.Fatalf("watch store: %v", err)
	}
	var (
		mu   sync.Mutex
		errs []string
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		follow(ch, name, func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			errs = append(errs, msg)
		})
	}()
	return func() {
		t.Helper()
		time.Sleep(100 * time.Millisecond) // let the watch catch up
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		if len(errs) > 0 {
			t.Fatalf("replica count overshot %d times; first: %s", len(errs), errs[0])
		}
	}
}

// follow applies every watched event to an invariant until ch closes.
func follow(ch <-chan []datastore.Event, name string, report func(string)) {
	inv := &invariant{name: name, live: map[string]bool{}}
	for batch := range ch {
		for i := range batch {
			if msg := inv.apply(&batch[i]); msg != "" {
				report(msg)
			}
		}
	}
}

// invariant follows one ReplicaSet's desired count and live pods.
type invariant struct {
	name    string
	desired int
	live    map[string]bool
}

func (v *invariant) apply(ev *datastore.Event) string {
	key := ev.KV.Key
	switch {
	case key == replicaSets.Key("default", v.name) && ev.Type != datastore.EventDelete:
		obj, _, err := api.DecodeJSON(replicaSets, ev.KV.Value, false)
		if err != nil {
			return fmt.Sprintf("rev %d: decode replicaset: %v", ev.Revision, err)
		}
		v.desired = int(*obj.(*appsv1.ReplicaSet).Spec.Replicas)
	case strings.HasPrefix(key, pods.Prefix("default")+v.name+"-"):
		was := len(v.live)
		if ev.Type == datastore.EventDelete || deleting(ev) {
			delete(v.live, key)
		} else {
			v.live[key] = true
		}
		if n := len(v.live); n > was && n > v.desired || n < was && n < v.desired {
			return fmt.Sprintf("rev %d: %d pods, spec.replicas %d", ev.Revision, n, v.desired)
		}
	}
	return ""
}

func deleting(ev *datastore.Event) bool {
	obj, _, err := api.DecodeJSON(pods, ev.KV.Value, false)
	return err == nil && (obj.GetDeletionTimestamp() != nil || obj.(*corev1.Pod).Status.Phase == corev1.PodFailed)
}
