package history

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/controllers"
)

// Resource is the controllerrevisions resource.
var Resource = controllers.MustResource("apps", "controllerrevisions")

// ErrCollision says the name a revision should take holds other data.
var ErrCollision = errors.New("controllerrevision name collision")

// Store reads revisions from the cache and writes them through the client.
type Store struct {
	client controllers.Client
	inf    *controllers.Informer
}

// NewStore keeps revisions with client, reading them from cache (which
// registers the controllerrevisions informer).
func NewStore(client controllers.Client, cache *controllers.Cache) *Store {
	return &Store{client: client, inf: cache.Informer(Resource)}
}

// Informer is the cache of revisions, for handlers.
func (s *Store) Informer() *controllers.Informer { return s.inf }

// Owned lists the revisions owner controls, lowest revision first.
func (s *Store) Owned(owner metav1.Object) []*appsv1.ControllerRevision {
	var out []*appsv1.ControllerRevision
	for _, o := range s.inf.ByIndex(controllers.IndexOwner, string(owner.GetUID())) {
		cr := o.(*appsv1.ControllerRevision)
		if cr.Namespace == owner.GetNamespace() && metav1.IsControlledBy(cr, owner) && cr.DeletionTimestamp == nil {
			out = append(out, cr)
		}
	}
	slices.SortFunc(out, func(a, b *appsv1.ControllerRevision) int {
		return cmp.Or(cmp.Compare(a.Revision, b.Revision), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// Latest is the highest revision number in revs (0 for none).
func Latest(revs []*appsv1.ControllerRevision) int64 {
	var n int64
	for _, cr := range revs {
		n = max(n, cr.Revision)
	}
	return n
}

// Spec is the revision a Store should make sure of.
type Spec struct {
	Owner       metav1.Object
	Kind        schema.GroupVersionKind
	Name        string
	Labels      map[string]string
	Annotations map[string]string
	Data        []byte
}

// Ensure returns the revision holding sp.Data, the latest of revs: an
// equal one found in revs is renumbered to the top when it is not there
// yet; otherwise a new one is created as sp.Name. ErrCollision says sp.Name
// is taken by other data.
func (s *Store) Ensure(ctx context.Context, sp Spec, revs []*appsv1.ControllerRevision) (*appsv1.ControllerRevision, error) {
	latest := Latest(revs)
	for _, cr := range revs {
		if bytes.Equal(cr.Data.Raw, sp.Data) {
			return s.renumber(ctx, cr, latest)
		}
	}
	out, err := s.client.Create(ctx, newRevision(sp, latest+1))
	if err == nil {
		return out.(*appsv1.ControllerRevision), nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create controllerrevision %s: %w", sp.Name, err)
	}
	got, gerr := s.client.Get(ctx, Resource, sp.Owner.GetNamespace(), sp.Name)
	if gerr != nil {
		return nil, fmt.Errorf("get controllerrevision %s: %w", sp.Name, gerr)
	}
	cr := got.(*appsv1.ControllerRevision)
	if !metav1.IsControlledBy(cr, sp.Owner) || !bytes.Equal(cr.Data.Raw, sp.Data) {
		return nil, fmt.Errorf("%w: %s", ErrCollision, sp.Name)
	}
	return s.renumber(ctx, cr, max(latest, cr.Revision-1))
}

// renumber moves cr to revision latest+1 unless it is the latest already.
func (s *Store) renumber(ctx context.Context, cr *appsv1.ControllerRevision, latest int64) (*appsv1.ControllerRevision, error) {
	if cr.Revision >= latest {
		return cr, nil
	}
	cp := cr.DeepCopy()
	cp.Revision = latest + 1
	out, err := s.client.Update(ctx, cp)
	if err != nil {
		return nil, fmt.Errorf("renumber controllerrevision %s: %w", cr.Name, err)
	}
	return out.(*appsv1.ControllerRevision), nil
}

func newRevision(sp Spec, revision int64) *appsv1.ControllerRevision {
	labels := maps.Clone(sp.Labels)
	annotations := maps.Clone(sp.Annotations)
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Name: sp.Name, Namespace: sp.Owner.GetNamespace(), Labels: labels, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(sp.Owner, sp.Kind)},
		},
		Data:     runtime.RawExtension{Raw: sp.Data},
		Revision: revision,
	}
}

// Truncate deletes the oldest revisions beyond limit, never one that
// keep names (those live pods or the status still point at).
func (s *Store) Truncate(ctx context.Context, revs []*appsv1.ControllerRevision, keep map[string]bool, limit int) error {
	var old []*appsv1.ControllerRevision
	for _, cr := range revs {
		if !keep[cr.Name] {
			old = append(old, cr)
		}
	}
	var errs []error
	for _, cr := range old[:max(len(old)-limit, 0)] {
		err := s.client.Delete(ctx, Resource, cr.Namespace, cr.Name, controllers.DeleteOptions{UID: string(cr.UID)})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("delete controllerrevision %s: %w", cr.Name, err))
		}
	}
	return errors.Join(errs...)
}
