package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// delete answers DELETE on one object: it is removed at once (200), or,
// while it has finalizers, marked with a deletionTimestamp (202). The answer
// is the object.
func (a *API) delete(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	opts, err := a.deleteOptions(w, r, ri)
	if err != nil {
		return err
	}
	obj, err := a.deleteOne(r.Context(), ri.res, ri.namespace, ri.name, opts)
	if err != nil {
		return err
	}
	code := http.StatusOK
	if ri.res != namespacesResource && len(obj.GetFinalizers()) > 0 {
		code = http.StatusAccepted // deletion pending until the finalizers go
	}
	return a.writeObject(w, ri, code, obj)
}

// deleteCollection answers DELETE on a collection: every object passing
// the selectors is deleted; the answer lists them.
func (a *API) deleteCollection(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	opts, err := a.deleteOptions(w, r, ri)
	if err != nil {
		return err
	}
	lq, err := parseListQuery(ri.res, ri.query)
	if err != nil {
		return err
	}
	lq.limit, lq.cont = 0, ""
	objs, lm, err := a.listObjects(r.Context(), ri.res, ri.namespace, lq)
	if err != nil {
		return err
	}
	deleted := make([]api.Object, 0, len(objs))
	for _, o := range objs {
		d, err := a.deleteOne(r.Context(), ri.res, o.GetNamespace(), o.GetName(), opts)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		deleted = append(deleted, d)
	}
	return a.writeList(w, ri, deleted, listMeta{rv: lm.rv})
}

// deleteOne deletes one object; a Namespace takes its contents with it.
func (a *API) deleteOne(ctx context.Context, res *api.Resource, ns, name string, opts *deleteOpts) (api.Object, error) {
	if res == namespacesResource {
		return a.deleteNamespace(ctx, name, opts)
	}
	obj, err := a.removeObject(ctx, res, ns, name, opts)
	if err != nil {
		return nil, err
	}
	if len(obj.GetFinalizers()) == 0 && !opts.dryRun {
		a.afterRemoval(ctx, res, obj)
	}
	return obj, nil
}

// removeObject deletes one object, or marks it for deletion while it has
// finalizers, counting those its propagation policy adds (propagation.go).
// It does not look at the object's namespace afterwards.
func (a *API) removeObject(ctx context.Context, res *api.Resource, ns, name string, opts *deleteOpts) (api.Object, error) {
	for attempt := 1; ; attempt++ {
		cur, kv, err := a.load(ctx, res, ns, name)
		if err != nil {
			return nil, err
		}
		if err := checkDeletePreconditions(res, cur, opts.Preconditions); err != nil {
			return nil, err
		}
		var out api.Object
		if fins := deletionFinalizers(cur, opts); len(fins) > 0 {
			out, err = a.markDeleting(ctx, cur, kv, fins, opts.dryRun)
		} else {
			cur.SetFinalizers(nil) // a second delete may drop "orphan" or "foregroundDeletion"
			out, err = a.storeDelete(ctx, cur, kv, opts.dryRun)
		}
		if errors.Is(err, datastore.ErrConflict) && attempt < maxUpdateAttempts {
			continue
		}
		if err != nil {
			return nil, storeError(err, res, name)
		}
		return out, nil
	}
}

func (a *API) storeDelete(ctx context.Context, cur api.Object, kv *datastore.KeyValue, dryRun bool) (api.Object, error) {
	if dryRun {
		return cur, nil
	}
	rev, _, err := a.store.Delete(ctx, kv.Key, kv.ModRevision)
	if err != nil {
		return nil, err
	}
	cur.SetResourceVersion(formatRV(rev))
	return cur, nil
}

// markDeleting gives an object that keeps finalizers (fins) its
// deletionTimestamp; it is removed when an update takes the last finalizer
// away. A second delete keeps the first timestamp and may only change the
// garbage collector's finalizers.
func (a *API) markDeleting(ctx context.Context, cur api.Object, kv *datastore.KeyValue, fins []string, dryRun bool) (api.Object, error) {
	if cur.GetDeletionTimestamp() != nil && sameFinalizers(fins, cur.GetFinalizers()) {
		return cur, nil
	}
	if cur.GetDeletionTimestamp() == nil {
		now := metav1.NewTime(a.now().UTC())
		grace := int64(0)
		cur.SetDeletionTimestamp(&now)
		cur.SetDeletionGracePeriodSeconds(&grace)
	}
	cur.SetFinalizers(fins)
	if dryRun {
		return cur, nil
	}
	data, err := encodeStored(cur)
	if err != nil {
		return nil, err
	}
	rev, err := a.store.Update(ctx, kv.Key, data, kv.ModRevision)
	if err != nil {
		return nil, err
	}
	cur.SetResourceVersion(formatRV(rev))
	return cur, nil
}

// finishDeletion removes an object whose last finalizer an update took
// away. Losing a race to another writer leaves the object to that writer.
func (a *API) finishDeletion(ctx context.Context, res *api.Resource, obj api.Object, rev int64) (api.Object, error) {
	if res == namespacesResource {
		return obj, a.finishNamespace(ctx, obj.GetName())
	}
	delRev, _, err := a.store.Delete(ctx, res.Key(obj.GetNamespace(), obj.GetName()), rev)
	switch {
	case errors.Is(err, datastore.ErrConflict), errors.Is(err, datastore.ErrNotFound):
		return obj, nil
	case err != nil:
		return nil, storeError(err, res, obj.GetName())
	}
	obj.SetResourceVersion(formatRV(delRev))
	a.afterRemoval(ctx, res, obj)
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
