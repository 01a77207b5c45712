package statefulset

import (
	"context"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/controllers/history"
)

// maxCollisions bounds how often a sync bumps the collision count before
// giving up until the next sync.
const maxCollisions = 5

// revisions is the set's history as one sync sees it: all its revisions
// (lowest first), the revision its pods converge on (update) and the one
// the status says all pods were at before (current), with its template.
type revisions struct {
	all             []*appsv1.ControllerRevision
	current, update *appsv1.ControllerRevision
	currentTemplate *corev1.PodTemplateSpec
	collisionCount  *int32
}

// loadRevisions makes sure the set's template has a revision, the
// latest, and finds the current one.
func (c *Controller) loadRevisions(ctx context.Context, set *appsv1.StatefulSet) (*revisions, error) {
	r := &revisions{all: c.history.Owned(set), collisionCount: set.Status.CollisionCount}
	if err := c.ensureUpdate(ctx, set, r); err != nil {
		return nil, err
	}
	r.all = replaceRevision(r.all, r.update)
	r.current = r.update
	for _, cr := range r.all {
		if cr.Name == set.Status.CurrentRevision {
			r.current = cr
		}
	}
	var err error
	if r.currentTemplate, err = history.Template(r.current); err != nil {
		return nil, err
	}
	return r, nil
}

// ensureUpdate finds or makes the revision of the set's template, named
// by its hash and the collision count, which it raises when another
// revision holds that name.
func (c *Controller) ensureUpdate(ctx context.Context, set *appsv1.StatefulSet, r *revisions) error {
	data, err := history.Patch(&set.Spec.Template)
	if err != nil {
		return err
	}
	for range maxCollisions {
		sp := history.Spec{Owner: set, Kind: setKind, Name: history.Name(set.Name, history.Hash(data, r.collisionCount)),
			Labels: set.Spec.Template.Labels, Annotations: set.Annotations, Data: data}
		r.update, err = c.history.Ensure(ctx, sp, r.all)
		if !errors.Is(err, history.ErrCollision) {
			return err
		}
		n := int32(0)
		if r.collisionCount != nil {
			n = *r.collisionCount + 1
		}
		r.collisionCount = &n
	}
	return err
}

// replaceRevision puts cr into revs in place of its namesake, or adds it.
func replaceRevision(revs []*appsv1.ControllerRevision, cr *appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	out := make([]*appsv1.ControllerRevision, 0, len(revs)+1)
	for _, r := range revs {
		if r.Name != cr.Name {
			out = append(out, r)
		}
	}
	return append(out, cr)
}

// truncateHistory deletes revisions beyond revisionHistoryLimit that no
// pod and neither the current nor the update revision use.
func (c *Controller) truncateHistory(ctx context.Context, set *appsv1.StatefulSet, st *state) error {
	keep := map[string]bool{st.revs.current.Name: true, st.revs.update.Name: true}
	for _, pod := range st.all {
		keep[pod.Labels[LabelRevision]] = true
	}
	limit := 10
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	if err := c.history.Truncate(ctx, st.revs.all, keep, limit); err != nil {
		return fmt.Errorf("statefulset %s/%s: %w", set.Namespace, set.Name, err)
	}
	return nil
}
