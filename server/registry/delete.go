package registry

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// Delete deletes one object: it is removed at once, or, while it has
// finalizers (its own, or those its propagation policy adds), marked with
// a deletionTimestamp. A Namespace takes its contents with it. nil opts
// mean the defaults.
func (r *Registry) Delete(ctx context.Context, res *api.Resource, ns, name string, opts *DeleteOptions) (api.Object, error) {
	opts = opts.orDefault()
	if res == namespacesResource {
		return r.deleteNamespace(ctx, name, opts)
	}
	if res == crdResource {
		return r.deleteCRD(ctx, name, opts)
	}
	obj, err := r.removeObject(ctx, res, ns, name, opts)
	if err != nil {
		return nil, err
	}
	if !stillStored(obj) && !opts.DryRun {
		r.afterRemoval(ctx, res, obj)
	}
	return obj, nil
}

// DeleteCollection deletes every object of res in ns that passes lo's
// selectors and returns those it deleted, with the list's revision.
func (r *Registry) DeleteCollection(ctx context.Context, res *api.Resource, ns string, lo ListOptions, opts *DeleteOptions) (*List, error) {
	lo.Limit, lo.Continue = 0, ""
	list, err := r.List(ctx, res, ns, lo)
	if err != nil {
		return nil, err
	}
	deleted := make([]api.Object, 0, len(list.Items))
	for _, o := range list.Items {
		d, err := r.Delete(ctx, res, o.GetNamespace(), o.GetName(), opts)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		deleted = append(deleted, d)
	}
	return &List{Items: deleted, ResourceVersion: list.ResourceVersion}, nil
}

// removeObject deletes one object, or marks it for deletion while it has
// finalizers, counting those its propagation policy adds (propagation.go),
// or while it is a pod its node must stop first (podgrace.go).
// It does not look at the object's namespace afterwards.
func (r *Registry) removeObject(ctx context.Context, res *api.Resource, ns, name string, opts *DeleteOptions) (api.Object, error) {
	for attempt := 1; ; attempt++ {
		cur, kv, err := r.load(ctx, res, ns, name)
		if err != nil {
			return nil, err
		}
		if err := checkDeletePreconditions(res, cur, opts.Preconditions); err != nil {
			return nil, err
		}
		if err := r.admitDelete(ctx, res, cur); err != nil {
			return nil, err
		}
		var out api.Object
		fins := deletionFinalizers(cur, opts)
		if m := podGraceMark(res, cur, opts, r.now().UTC()); m != nil {
			out, err = r.markGraceful(ctx, cur, kv, fins, m, opts.DryRun)
		} else if len(fins) > 0 {
			out, err = r.markDeleting(ctx, cur, kv, fins, opts.DryRun)
		} else {
			cur.SetFinalizers(nil) // a second delete may drop "orphan" or "foregroundDeletion"
			out, err = r.storeDelete(ctx, cur, kv, opts.DryRun)
		}
		if errors.Is(err, datastore.ErrConflict) && attempt < maxUpdateAttempts {
			continue
		}
		if err != nil {
			return nil, StoreError(err, res, name)
		}
		return out, nil
	}
}

func (r *Registry) storeDelete(ctx context.Context, cur api.Object, kv *datastore.KeyValue, dryRun bool) (api.Object, error) {
	if dryRun {
		return cur, nil
	}
	rev, _, err := r.store.Delete(ctx, kv.Key, kv.ModRevision)
	if err != nil {
		return nil, err
	}
	r.sums.forget(kv.ModRevision)
	cur.SetResourceVersion(FormatResourceVersion(rev))
	return cur, nil
}

// markDeleting gives an object that keeps finalizers (fins) its
// deletionTimestamp; it is removed when an update takes the last finalizer
// away. A second delete keeps the first timestamp and may only change the
// garbage collector's finalizers.
func (r *Registry) markDeleting(ctx context.Context, cur api.Object, kv *datastore.KeyValue, fins []string, dryRun bool) (api.Object, error) {
	if cur.GetDeletionTimestamp() != nil && sameFinalizers(fins, cur.GetFinalizers()) {
		return cur, nil
	}
	if cur.GetDeletionTimestamp() == nil {
		now := metav1.NewTime(r.now().UTC())
		grace := int64(0)
		cur.SetDeletionTimestamp(&now)
		cur.SetDeletionGracePeriodSeconds(&grace)
	}
	cur.SetFinalizers(fins)
	return r.storeMarked(ctx, cur, kv, dryRun)
}

// storeMarked writes an object a delete marked but keeps.
func (r *Registry) storeMarked(ctx context.Context, cur api.Object, kv *datastore.KeyValue, dryRun bool) (api.Object, error) {
	if dryRun {
		return cur, nil
	}
	data, err := encodeStored(cur)
	if err != nil {
		return nil, err
	}
	rev, err := r.store.Update(ctx, kv.Key, data, kv.ModRevision)
	if err != nil {
		return nil, err
	}
	r.sums.note(kv.Key, kv.ModRevision, rev, data)
	cur.SetResourceVersion(FormatResourceVersion(rev))
	return cur, nil
}

// finishDeletion removes an object whose last finalizer an update took
// away. Losing a race to another writer leaves the object to that writer.
func (r *Registry) finishDeletion(ctx context.Context, res *api.Resource, obj api.Object, rev int64) (api.Object, error) {
	if res == namespacesResource {
		return obj, r.finishNamespace(ctx, obj.GetName())
	}
	delRev, _, err := r.store.Delete(ctx, res.Key(obj.GetNamespace(), obj.GetName()), rev)
	switch {
	case errors.Is(err, datastore.ErrConflict), errors.Is(err, datastore.ErrNotFound):
		return obj, nil
	case err != nil:
		return nil, StoreError(err, res, obj.GetName())
	}
	r.sums.forget(rev)
	obj.SetResourceVersion(FormatResourceVersion(delRev))
	r.afterRemoval(ctx, res, obj)
	return obj, nil
}

func checkDeletePreconditions(res *api.Resource, cur api.Object, pre *metav1.Preconditions) error {
	if pre == nil {
		return nil
	}
	if pre.UID != nil && *pre.UID != cur.GetUID() {
		//lint:ignore ST1005 the apiserver's wording, which kubectl shows as is.
		return apierrors.NewConflict(res.GroupResource(), cur.GetName(), fmt.Errorf(
			"Precondition failed: UID in precondition: %s, UID in object meta: %s", *pre.UID, cur.GetUID()))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != cur.GetResourceVersion() {
		//lint:ignore ST1005 the apiserver's wording, which kubectl shows as is.
		return apierrors.NewConflict(res.GroupResource(), cur.GetName(), fmt.Errorf(
			"Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s",
			*pre.ResourceVersion, cur.GetResourceVersion()))
	}
	return nil
}
