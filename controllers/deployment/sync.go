package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/controllers"
)

// pass is one sync of one Deployment. d is a private copy; after each
// write to the Deployment its metadata follows the stored object, so a
// later write does not conflict with our own earlier one.
type pass struct {
	c *Controller
	d *appsv1.Deployment
	// latest holds each ReplicaSet this pass wrote, as stored.
	latest map[types.UID]*appsv1.ReplicaSet
}

// sync reconciles the Deployment named by key. Which path it takes follows
// Kubernetes: paused or being scaled -> only sizes and status; otherwise the
// strategy's rollout step.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	obj, ok := c.deployments.Get(ns, name)
	if !ok {
		return nil
	}
	if obj.GetDeletionTimestamp() != nil {
		return nil // the garbage collector removes what it owns
	}
	p := &pass{c: c, d: obj.(*appsv1.Deployment).DeepCopy(), latest: map[types.UID]*appsv1.ReplicaSet{}}
	if err := p.run(ctx); err != nil {
		return fmt.Errorf("sync deployment %s: %w", key, err)
	}
	return nil
}

func (p *pass) run(ctx context.Context) error {
	sel, err := metav1.LabelSelectorAsSelector(p.d.Spec.Selector)
	if err != nil || sel.Empty() {
		return p.selectingAll(ctx)
	}
	rss, err := p.claim(ctx, sel)
	if err != nil {
		return err
	}
	if err := p.checkPaused(ctx); err != nil {
		return err
	}
	if p.d.Spec.Paused || p.isScalingEvent(rss) {
		return p.scaleOnly(ctx, rss)
	}
	if p.d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		return p.recreate(ctx, rss)
	}
	return p.rolling(ctx, rss)
}

// selectingAll refuses a Deployment whose selector would take every pod.
func (p *pass) selectingAll(ctx context.Context) error {
	p.c.recorder.Eventf(p.d, corev1.EventTypeWarning, "SelectingAll",
		"This deployment is selecting all pods. A non-empty selector is required.")
	if p.d.Status.ObservedGeneration >= p.d.Generation {
		return nil
	}
	p.d.Status.ObservedGeneration = p.d.Generation
	return p.writeStatus(ctx)
}

// isScalingEvent reports whether the Deployment's size changed since its
// active ReplicaSets were last sized (their desired-replicas annotation).
func (p *pass) isScalingEvent(rss []*appsv1.ReplicaSet) bool {
	newRS, old := split(p.d, rss)
	for _, rs := range active(withNew(old, newRS)) {
		if want, ok := annotatedInt(rs, DesiredReplicasAnnotation); ok && want != desired(p.d) {
			return true
		}
	}
	return false
}

// scaleOnly sizes the ReplicaSets for a scaled or paused Deployment without
// moving the rollout on, then updates status (no progress estimate).
func (p *pass) scaleOnly(ctx context.Context, rss []*appsv1.ReplicaSet) error {
	newRS, old, err := p.newAndOld(ctx, rss, false)
	if err != nil {
		return err
	}
	if err := p.scale(ctx, newRS, old); err != nil {
		return err
	}
	if p.d.Spec.Paused {
		if err := p.cleanup(ctx, p.fresh(old)); err != nil {
			return err
		}
	}
	st := p.calculateStatus(p.fresh(withNew(old, newRS)), p.one(newRS))
	if statusEqual(&p.d.Status, &st) {
		return nil
	}
	p.d.Status = st
	return p.writeStatus(ctx)
}

// checkPaused records pausing and resuming in the Progressing condition
// (unless the rollout has already timed out).
func (p *pass) checkPaused(ctx context.Context) error {
	if !hasDeadline(p.d) {
		return nil
	}
	cond := getCondition(&p.d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == ReasonTimedOut {
		return nil
	}
	pausedNoted := cond != nil && cond.Reason == ReasonPaused
	switch {
	case p.d.Spec.Paused && !pausedNoted:
		p.setCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ReasonPaused, "Deployment is paused")
	case !p.d.Spec.Paused && pausedNoted:
		p.setCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ReasonResumed, "Deployment is resumed")
	default:
		return nil
	}
	return p.writeStatus(ctx)
}

// writeStatus stores p.d.Status and follows the new resourceVersion.
func (p *pass) writeStatus(ctx context.Context) error {
	out, err := p.c.client.UpdateStatus(ctx, p.d)
	if err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	p.d.ResourceVersion = out.GetResourceVersion()
	return nil
}

// writeMeta stores p.d's annotations through the status subresource,
// which for Deployments takes annotations without bumping generation (as
// Kubernetes' controller records revisions), and follows the result.
func (p *pass) writeMeta(ctx context.Context) error {
	out, err := p.c.client.UpdateStatus(ctx, p.d)
	if err != nil {
		return fmt.Errorf("update deployment annotations: %w", err)
	}
	p.d.ObjectMeta = *out.(*appsv1.Deployment).ObjectMeta.DeepCopy()
	return nil
}

// update writes a changed ReplicaSet and returns the stored version.
func (p *pass) update(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	out, err := p.c.client.Update(ctx, rs)
	if err != nil {
		return nil, fmt.Errorf("update replica set %s: %w", rs.Name, err)
	}
	stored := out.(*appsv1.ReplicaSet)
	p.latest[stored.UID] = stored
	return stored, nil
}

// one is rs as this pass last wrote it (rs itself if unwritten, nil if nil).
func (p *pass) one(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if rs == nil {
		return nil
	}
	if cur, ok := p.latest[rs.UID]; ok {
		return cur
	}
	return rs
}

// fresh maps one over rss.
func (p *pass) fresh(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	out := make([]*appsv1.ReplicaSet, len(rss))
	for i, rs := range rss {
		out[i] = p.one(rs)
	}
	return out
}
