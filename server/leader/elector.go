package leader

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// elector is one campaign's state.
type elector struct {
	cfg Config
	// observed is the Lease as last read and observedAt when it last
	// changed, on this process's clock.
	observed   *coordinationv1.Lease
	observedAt time.Time
}

// tryAcquireOrRenew takes the Lease when it is free, expired or already
// ours, and reports whether we hold it now. A lost race is (false, nil).
func (e *elector) tryAcquireOrRenew(ctx context.Context) (bool, error) {
	now := e.cfg.Now()
	obj, err := e.cfg.Leases.Get(ctx, leasesResource, e.cfg.Namespace, e.cfg.Name)
	if isNotFound(err) {
		out, err := e.cfg.Leases.Create(ctx, e.newLease(now))
		if apierrors.IsAlreadyExists(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		e.observe(out.(*coordinationv1.Lease), now)
		return true, nil
	}
	if err != nil {
		return false, err
	}
	cur := obj.(*coordinationv1.Lease)
	e.observe(cur, now)
	mine := holder(cur) == e.cfg.Identity
	if !mine && holder(cur) != "" && now.Before(e.observedAt.Add(duration(cur))) {
		return false, nil // held by another and not expired
	}
	next := cur.DeepCopy()
	at := metav1.NewMicroTime(now)
	next.Spec.RenewTime = &at
	secs := int32(e.cfg.LeaseDuration / time.Second)
	next.Spec.LeaseDurationSeconds = &secs
	if !mine {
		id := e.cfg.Identity
		next.Spec.HolderIdentity, next.Spec.AcquireTime = &id, &at
		var transitions int32
		if cur.Spec.LeaseTransitions != nil {
			transitions = *cur.Spec.LeaseTransitions
		}
		next.Spec.LeaseTransitions = ptr(transitions + 1)
	}
	out, err := e.cfg.Leases.Update(ctx, next)
	if apierrors.IsConflict(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	e.observe(out.(*coordinationv1.Lease), now)
	return true, nil
}

// observe notes l, restarting the expiry clock when it changed.
func (e *elector) observe(l *coordinationv1.Lease, now time.Time) {
	if e.observed == nil || e.observed.ResourceVersion != l.ResourceVersion {
		e.observed, e.observedAt = l, now
	}
}

// release gives the Lease up (holder cleared, duration 1 s) so a standby
// takes it at once; best effort.
func (e *elector) release() {
	if e.observed == nil || holder(e.observed) != e.cfg.Identity {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.RetryPeriod)
	defer cancel()
	next := e.observed.DeepCopy()
	one := int32(1)
	at := metav1.NewMicroTime(e.cfg.Now())
	next.Spec.HolderIdentity, next.Spec.LeaseDurationSeconds, next.Spec.RenewTime = nil, &one, &at
	if _, err := e.cfg.Leases.Update(ctx, next); err != nil {
		e.cfg.Log.Warn("could not release the lease", "err", err)
		return
	}
	e.cfg.Log.Info("released the lease", "lease", e.cfg.Namespace+"/"+e.cfg.Name)
}

func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// duration is the Lease's own duration (a holder may ask for another
// than ours), at least a second.
func duration(l *coordinationv1.Lease) time.Duration {
	if l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds < 1 {
		return time.Second
	}
	return time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
}

func ptr[T any](v T) *T { return &v }
