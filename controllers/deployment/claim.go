package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/controllers"
)

var deploymentKind = appsv1.SchemeGroupVersion.WithKind("Deployment")

// claim returns the ReplicaSets the Deployment controls, as Kubernetes'
// controller-ref manager decides: ours and matching are kept; ours and no
// longer matching are released; orphans that match are adopted; those of
// another controller are left alone.
func (p *pass) claim(ctx context.Context, sel labels.Selector) ([]*appsv1.ReplicaSet, error) {
	var out []*appsv1.ReplicaSet
	checked := false
	for _, obj := range p.c.rss.ByIndex(controllers.IndexNamespace, p.d.Namespace) {
		rs := obj.(*appsv1.ReplicaSet)
		ref := metav1.GetControllerOfNoCopy(rs)
		match := sel.Matches(labels.Set(rs.Labels))
		switch {
		case ref != nil && ref.UID != p.d.UID:
		case ref != nil && match:
			out = append(out, rs)
		case ref != nil:
			if err := p.release(ctx, rs); err != nil {
				return nil, err
			}
		case match && rs.DeletionTimestamp == nil:
			adopted, err := p.adopt(ctx, rs, &checked)
			if err != nil {
				return nil, err
			}
			if adopted != nil {
				out = append(out, adopted)
			}
		}
	}
	return out, nil
}

// canAdopt rechecks against the store that the Deployment is still the one
// we hold and is not being deleted, before it takes anything.
func (p *pass) canAdopt(ctx context.Context) error {
	obj, err := p.c.client.Get(ctx, deploymentsRes, p.d.Namespace, p.d.Name)
	if err != nil {
		return fmt.Errorf("recheck before adopting: %w", err)
	}
	if obj.GetUID() != p.d.UID {
		return fmt.Errorf("deployment %s/%s is gone: uid is %s, want %s", p.d.Namespace, p.d.Name, obj.GetUID(), p.d.UID)
	}
	if obj.GetDeletionTimestamp() != nil {
		return fmt.Errorf("deployment %s/%s is being deleted; not adopting", p.d.Namespace, p.d.Name)
	}
	return nil
}

// adopt makes the Deployment rs's controller; the first adoption of a pass
// rechecks the Deployment (checked records that).
func (p *pass) adopt(ctx context.Context, rs *appsv1.ReplicaSet, checked *bool) (*appsv1.ReplicaSet, error) {
	if !*checked {
		if err := p.canAdopt(ctx); err != nil {
			return nil, err
		}
		*checked = true
	}
	cp := rs.DeepCopy()
	cp.OwnerReferences = append(cp.OwnerReferences, *metav1.NewControllerRef(p.d, deploymentKind))
	out, err := p.update(ctx, cp)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("adopt: %w", err)
	}
	return out, nil
}

func (p *pass) release(ctx context.Context, rs *appsv1.ReplicaSet) error {
	cp := rs.DeepCopy()
	refs := cp.OwnerReferences[:0]
	for _, r := range cp.OwnerReferences {
		if r.UID != p.d.UID {
			refs = append(refs, r)
		}
	}
	cp.OwnerReferences = refs
	_, err := p.update(ctx, cp)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release: %w", err)
	}
	return nil
}
