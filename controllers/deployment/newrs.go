package deployment

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newAndOld splits the Deployment's ReplicaSets into the new one (nil if
// none) and the others, bringing the new one's annotations and the
// Deployment's revision up to date. With create, a missing new ReplicaSet
// is made. Its revision is one above every old one's, so an old ReplicaSet
// revived by `kubectl rollout undo` becomes the latest revision.
func (p *pass) newAndOld(ctx context.Context, rss []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	newRS, old := split(p.d, rss)
	revision := maxRevision(old) + 1
	var err error
	switch {
	case newRS != nil:
		newRS, err = p.syncNewRS(ctx, newRS, revision)
	case create:
		newRS, err = p.createNewRS(ctx, old, revision)
	}
	return newRS, old, err
}

func (p *pass) syncNewRS(ctx context.Context, rs *appsv1.ReplicaSet, revision int64) (*appsv1.ReplicaSet, error) {
	cp := rs.DeepCopy()
	changed := setNewRSAnnotations(p.d, cp, revision)
	if changed || cp.Spec.MinReadySeconds != p.d.Spec.MinReadySeconds {
		cp.Spec.MinReadySeconds = p.d.Spec.MinReadySeconds
		return p.update(ctx, cp) // the Deployment follows on the next sync
	}
	if err := p.setRevision(ctx, cp.Annotations[RevisionAnnotation]); err != nil {
		return nil, err
	}
	if hasDeadline(p.d) && getCondition(&p.d.Status, appsv1.DeploymentProgressing) == nil {
		p.setCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonFoundNewRS,
			fmt.Sprintf("Found new replica set %q", cp.Name))
		if err := p.writeStatus(ctx); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// setRevision copies the new ReplicaSet's revision onto the Deployment.
func (p *pass) setRevision(ctx context.Context, revision string) error {
	if p.d.Annotations[RevisionAnnotation] == revision {
		return nil
	}
	if p.d.Annotations == nil {
		p.d.Annotations = map[string]string{}
	}
	p.d.Annotations[RevisionAnnotation] = revision
	return p.writeMeta(ctx)
}

// template returns the new ReplicaSet's name, template and selector, all
// carrying the hash label.
func (p *pass) template() (string, *corev1.PodTemplateSpec, *metav1.LabelSelector) {
	hash := TemplateHash(&p.d.Spec.Template, p.d.Status.CollisionCount)
	t := p.d.Spec.Template.DeepCopy()
	t.Labels = withLabel(t.Labels, HashLabel, hash)
	sel := p.d.Spec.Selector.DeepCopy()
	sel.MatchLabels = withLabel(sel.MatchLabels, HashLabel, hash)
	return p.d.Name + "-" + hash, t, sel
}

func withLabel(m map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for mk, mv := range m {
		out[mk] = mv
	}
	out[k] = v
	return out
}

// newRSObject is the new ReplicaSet to create: sized as the strategy
// allows at once, owned by the Deployment, annotated with revision.
func (p *pass) newRSObject(old []*appsv1.ReplicaSet, revision int64) *appsv1.ReplicaSet {
	name, t, sel := p.template()
	surge, _ := fenceposts(p.d)
	replicas := desired(p.d)
	if p.d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		replicas = NewRSReplicas(desired(p.d), surge, sumSpec(old...), 0)
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.d.Namespace, Labels: t.Labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(p.d, deploymentKind)}},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, MinReadySeconds: p.d.Spec.MinReadySeconds,
			Selector: sel, Template: *t},
	}
	setNewRSAnnotations(p.d, rs, revision)
	setReplicasAnnotations(rs, desired(p.d), desired(p.d)+surge)
	return rs
}

func (p *pass) createNewRS(ctx context.Context, old []*appsv1.ReplicaSet, revision int64) (*appsv1.ReplicaSet, error) {
	rs := p.newRSObject(old, revision)
	created, err := p.c.client.Create(ctx, rs)
	if apierrors.IsAlreadyExists(err) {
		found, err := p.existing(ctx, rs)
		if err != nil {
			return nil, err
		}
		return found, p.setRevision(ctx, strconv.FormatInt(revision, 10))
	}
	if err != nil {
		return nil, p.createFailed(ctx, rs.Name, err)
	}
	out := created.(*appsv1.ReplicaSet)
	if n := specReplicas(out); n > 0 {
		p.c.recorder.Eventf(p.d, corev1.EventTypeNormal, "ScalingReplicaSet",
			"Scaled up replica set %s from 0 to %d", out.Name, n)
	}
	if err := p.setRevision(ctx, strconv.FormatInt(revision, 10)); err != nil {
		return nil, err
	}
	if hasDeadline(p.d) {
		p.setCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonNewRSCreated,
			fmt.Sprintf("Created new replica set %q", out.Name))
		if err := p.writeStatus(ctx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// existing handles a create that found the name taken: our own ReplicaSet
// for this template (the cache was behind) is used; anything else is a
// hash collision, resolved by bumping status.collisionCount and retrying.
func (p *pass) existing(ctx context.Context, want *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	obj, err := p.c.client.Get(ctx, replicaSetsRes, want.Namespace, want.Name)
	if err != nil {
		return nil, fmt.Errorf("read replica set %s after create conflict: %w", want.Name, err)
	}
	rs := obj.(*appsv1.ReplicaSet)
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil && ref.UID == p.d.UID &&
		EqualIgnoreHash(&rs.Spec.Template, &p.d.Spec.Template) {
		return rs, nil
	}
	n := int32(1)
	if p.d.Status.CollisionCount != nil {
		n = *p.d.Status.CollisionCount + 1
	}
	p.d.Status.CollisionCount = &n
	if err := p.writeStatus(ctx); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("replica set %s exists with another template; collision count now %d", want.Name, n)
}

func (p *pass) createFailed(ctx context.Context, name string, err error) error {
	msg := fmt.Sprintf("Failed to create new replica set %q: %v", name, err)
	p.c.recorder.Eventf(p.d, corev1.EventTypeWarning, ReasonCreateError, "%s", msg)
	if hasDeadline(p.d) {
		p.setCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, ReasonCreateError, msg)
		_ = p.writeStatus(ctx) // the create error is the one to report
	}
	return fmt.Errorf("create replica set %s: %w", name, err)
}
