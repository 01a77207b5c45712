package leader_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers/controllertest"
	"github.com/bramble-edge/bramble/server/leader"
)

// cutLeases is the real API's Lease access with a switch that makes every
// call fail, as a server cut off from the shared datastore would see.
type cutLeases struct {
	leader.Leases
	cut atomic.Bool
}

var errCut = errors.New("datastore unreachable")

func (c *cutLeases) Get(ctx context.Context, r *api.Resource, ns, name string) (api.Object, error) {
	if c.cut.Load() {
		return nil, errCut
	}
	return c.Leases.Get(ctx, r, ns, name)
}

func (c *cutLeases) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	if c.cut.Load() {
		return nil, errCut
	}
	return c.Leases.Update(ctx, obj)
}

// leaders counts who leads, and remembers whether two ever led at once.
type leaders struct {
	mu      sync.Mutex
	now     map[string]bool
	overlap bool
}

func (l *leaders) lead(id string) func(ctx context.Context) {
	return func(ctx context.Context) {
		l.mu.Lock()
		if len(l.now) > 0 {
			l.overlap = true
		}
		l.now[id] = true
		l.mu.Unlock()
		<-ctx.Done()
		l.mu.Lock()
		delete(l.now, id)
		l.mu.Unlock()
	}
}

func (l *leaders) is(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.now[id] && len(l.now) == 1
}

func campaign(t *testing.T, leases leader.Leases, id string, l *leaders) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cfg := leader.Config{Leases: leases, Name: "bramble-server", Identity: id,
		LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond}
	go func() { done <- leader.Run(ctx, cfg, l.lead(id)) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run %s: %v", id, err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// TestOneLeaderAtATime: a second server stands by while the first renews;
// takes over at once when the first stops cleanly; and when a leader is
// cut off from the datastore, it stops leading before anyone else starts.
func TestOneLeaderAtATime(t *testing.T) {
	e := controllertest.New(t)
	l := &leaders{now: map[string]bool{}}
	a := &cutLeases{Leases: e.Client}
	stopA := campaign(t, a, "server-a", l)
	e.Eventually(5*time.Second, func() error { return want(l.is("server-a"), "server-a to lead") })
	stopB := campaign(t, e.Client, "server-b", l)
	time.Sleep(3 * time.Second) // longer than the lease: a's renewals keep it
	if !l.is("server-a") {
		t.Fatal("server-b took the lease while server-a renewed it")
	}

	stopA() // a clean stop releases the lease
	e.Eventually(time.Second, func() error { return want(l.is("server-b"), "server-b to take over within a second of the release") })

	// server-b is cut off; server-a comes back and must wait until b has
	// stopped leading.
	stopB()
	a.cut.Store(false)
	c := &cutLeases{Leases: e.Client}
	campaign(t, c, "server-c", l)
	e.Eventually(5*time.Second, func() error { return want(l.is("server-c"), "server-c to lead") })
	campaign(t, a, "server-a", l)
	c.cut.Store(true)
	e.Eventually(10*time.Second, func() error { return want(l.is("server-a"), "server-a to take over from the cut-off server-c") })

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.overlap {
		t.Fatal("two servers led at the same time")
	}
	got, err := e.Client.Get(e.Ctx, controllertest.Resource("coordination.k8s.io", "leases"), "kube-system", "bramble-server")
	if err != nil {
		t.Fatal(err)
	}
	if lease := got.(*coordinationv1.Lease); *lease.Spec.HolderIdentity != "server-a" || *lease.Spec.LeaseTransitions < 3 {
		t.Fatalf("lease: holder %s after %d transitions, want server-a after at least 3", *lease.Spec.HolderIdentity, *lease.Spec.LeaseTransitions)
	}
}

func want(ok bool, what string) error {
	if ok {
		return nil
	}
	return errors.New("waiting for " + what)
}
