// Package leader elects one leader among servers that share a datastore,
// through a coordination.k8s.io/v1 Lease, as kube-scheduler and
// kube-controller-manager do: the holder renews the Lease; a candidate
// takes it over once it has seen no renewal for the lease duration,
// measured on its own clock from the moment it last saw the Lease change,
// so clock skew between servers does not matter. The leader's work runs
// under a context that ends as soon as a renewal cannot be confirmed in
// time, before another server may take over.
package leader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// Leases reads and writes Lease objects (the API's admission path, in
// process, in the server).
type Leases interface {
	Get(ctx context.Context, res *api.Resource, namespace, name string) (api.Object, error)
	Create(ctx context.Context, obj api.Object) (api.Object, error)
	Update(ctx context.Context, obj api.Object) (api.Object, error)
}

// Config says which Lease to hold and how. Leases, Name and Identity are
// required; zero durations get the defaults.
type Config struct {
	Leases    Leases
	Namespace string // default kube-system
	Name      string
	Identity  string // unique per process
	// LeaseDuration is how long a Lease unrenewed stays the holder's
	// (default 15 s); RenewDeadline how long the holder keeps leading
	// without a confirmed renewal (default 10 s, less than LeaseDuration);
	// RetryPeriod the wait between attempts (default 2 s).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	Log                                       *slog.Logger
	Now                                       func() time.Time
}

func (c *Config) check() error {
	if c.Leases == nil || c.Name == "" || c.Identity == "" {
		return errors.New("leader election: Leases, Name and Identity are required")
	}
	if c.Namespace == "" {
		c.Namespace = metav1.NamespaceSystem
	}
	if c.LeaseDuration == 0 {
		c.LeaseDuration = 15 * time.Second
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = 10 * time.Second
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = 2 * time.Second
	}
	if c.RenewDeadline >= c.LeaseDuration || c.RetryPeriod >= c.RenewDeadline {
		return fmt.Errorf("leader election: want retry period (%v) < renew deadline (%v) < lease duration (%v)",
			c.RetryPeriod, c.RenewDeadline, c.LeaseDuration)
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

var leasesResource = func() *api.Resource {
	r, ok := api.Lookup("coordination.k8s.io", "v1", "leases")
	if !ok {
		panic("leader: leases are not served")
	}
	return r
}()

// Run campaigns for the Lease until ctx ends. Each time it wins, it runs
// lead with a context that ends when leadership is lost (or ctx ends),
// and waits for lead to return before campaigning again. When ctx ends
// while leading, it releases the Lease so another server takes over at
// once.
func Run(ctx context.Context, cfg Config, lead func(ctx context.Context)) error {
	if err := cfg.check(); err != nil {
		return err
	}
	e := &elector{cfg: cfg}
	for {
		if !e.acquire(ctx) {
			return nil
		}
		cfg.Log.Info("became the leader", "lease", cfg.Namespace+"/"+cfg.Name, "identity", cfg.Identity)
		e.leadUntilLost(ctx, lead)
		if ctx.Err() != nil {
			e.release()
			return nil
		}
		cfg.Log.Warn("lost the lease; standing by", "lease", cfg.Namespace+"/"+cfg.Name)
	}
}

// leadUntilLost runs lead while renewals succeed within the deadline.
func (e *elector) leadUntilLost(ctx context.Context, lead func(ctx context.Context)) {
	lctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); lead(lctx) }()
	lastRenew := e.cfg.Now()
	for lctx.Err() == nil {
		sleep(lctx, e.cfg.RetryPeriod)
		if lctx.Err() != nil {
			break
		}
		if held, err := e.tryAcquireOrRenew(lctx); held {
			lastRenew = e.cfg.Now()
		} else if e.cfg.Now().Sub(lastRenew) >= e.cfg.RenewDeadline || (err == nil && !held) {
			break // not confirmed in time, or someone else holds it
		}
	}
	stop()
	<-done
}

// acquire tries every RetryPeriod until it holds the Lease; false when ctx
// ended first.
func (e *elector) acquire(ctx context.Context) bool {
	for {
		if held, err := e.tryAcquireOrRenew(ctx); held {
			return true
		} else if err != nil && ctx.Err() == nil {
			e.cfg.Log.Debug("lease not acquired", "err", err)
		}
		sleep(ctx, e.cfg.RetryPeriod)
		if ctx.Err() != nil {
			return false
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// newLease is a Lease held by cfg.Identity from now.
func (e *elector) newLease(now time.Time) *coordinationv1.Lease {
	secs := int32(e.cfg.LeaseDuration / time.Second)
	at := metav1.NewMicroTime(now)
	id := e.cfg.Identity
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.cfg.Namespace, Name: e.cfg.Name},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &id, LeaseDurationSeconds: &secs,
			AcquireTime: &at, RenewTime: &at},
	}
}

func isNotFound(err error) bool { return apierrors.IsNotFound(err) }
