package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// writeReq is one read-modify-write of a stored object.
type writeReq struct {
	res      *api.Resource
	ns, name string
	// mutate turns a private copy of the current object into the desired one.
	mutate func(cur api.Object) (api.Object, error)
	// admit checks and normalises next against cur; nil for writes the
	// server makes itself (binding, deletion marks).
	admit  func(next, cur api.Object) error
	dryRun bool
}

// maxUpdateAttempts bounds the retries of a write that races another.
const maxUpdateAttempts = 8

// update answers PUT on an object or its status.
func (a *API) update(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	obj, opts, warnings, err := a.readRequestObject(w, r, ri, ri.res)
	if err != nil {
		return err
	}
	if err := checkIdentity(ri, obj); err != nil {
		return err
	}
	addWarnings(w, warnings)
	out, err := a.updateObject(r.Context(), writeReq{
		res: ri.res, ns: ri.namespace, name: ri.name, dryRun: opts.dryRun,
		mutate: func(api.Object) (api.Object, error) { return obj.DeepCopyObject().(api.Object), nil },
		admit:  admitUpdate(ri.res, ri.sub),
	})
	if err != nil {
		return err
	}
	return a.writeObject(w, ri, http.StatusOK, out)
}

// checkIdentity makes sure a body names the object of the URL.
func checkIdentity(ri *requestInfo, obj api.Object) error {
	if obj.GetName() != ri.name {
		return badRequest("the name of the object (%s) does not match the name on the URL (%s)", obj.GetName(), ri.name)
	}
	return sameNamespace(ri.res, ri.namespace, obj)
}

// updateObject reads the object, applies wr.mutate, checks the
// resourceVersion precondition the result carries, admits and stores it.
// A write that loses a race is retried from a fresh read; with a
// precondition that read then fails it with 409.
func (a *API) updateObject(ctx context.Context, wr writeReq) (api.Object, error) {
	for attempt := 1; ; attempt++ {
		cur, kv, err := a.load(ctx, wr.res, wr.ns, wr.name)
		if err != nil {
			return nil, err
		}
		next, err := wr.mutate(cur.DeepCopyObject().(api.Object))
		if err != nil {
			return nil, err
		}
		if err := checkPrecondition(wr.res, next, cur); err != nil {
			return nil, err
		}
		next.SetResourceVersion(cur.GetResourceVersion()) // unconditional updates write over cur
		if wr.admit != nil {
			if err := wr.admit(next, cur); err != nil {
				return nil, err
			}
		}
		out, err := a.storeUpdate(ctx, wr, next, kv)
		if errors.Is(err, datastore.ErrConflict) && attempt < maxUpdateAttempts {
			continue
		}
		if err != nil {
			return nil, storeError(err, wr.res, wr.name)
		}
		return out, nil
	}
}

// checkPrecondition: a resourceVersion in the new object must be the
// current one (409 otherwise); an empty one means "whatever is there".
func checkPrecondition(res *api.Resource, next, cur api.Object) error {
	rv := next.GetResourceVersion()
	if rv == "" || rv == cur.GetResourceVersion() {
		return nil
	}
	if _, err := parseResourceVersion(rv); err != nil {
		return invalid(res, cur.GetName(), field.ErrorList{field.Invalid(
			field.NewPath("metadata", "resourceVersion"), rv, "must be a decimal revision number")})
	}
	return conflict(res, cur.GetName())
}

// storeUpdate writes next over kv unless nothing changed (then the stored
// object is answered, revision unchanged) or this is a dry run. An object
// being deleted whose last finalizer just went is removed.
func (a *API) storeUpdate(ctx context.Context, wr writeReq, next api.Object, kv *datastore.KeyValue) (api.Object, error) {
	next.SetResourceVersion(formatRV(kv.ModRevision))
	data, err := encodeStored(next)
	if err != nil {
		return nil, err
	}
	if wr.dryRun || bytes.Equal(data, kv.Value) {
		return next, nil
	}
	rev, err := a.store.Update(ctx, kv.Key, data, kv.ModRevision)
	if err != nil {
		return nil, err
	}
	next.SetResourceVersion(formatRV(rev))
	if next.GetDeletionTimestamp() != nil && len(next.GetFinalizers()) == 0 {
		return a.finishDeletion(ctx, wr.res, next, rev)
	}
	return next, nil
}

// admitUpdate is update admission for the main resource or its status:
// server-owned metadata kept, defaulting, preparation, validation.
func admitUpdate(res *api.Resource, sub string) func(next, cur api.Object) error {
	return func(next, cur api.Object) error {
		keepUpdateFields(next, cur)
		api.Default(next)
		var errs field.ErrorList
		if sub == "status" {
			api.PrepareForStatusUpdate(res, next, cur)
			errs = api.ValidateStatusUpdate(res, next, cur)
		} else {
			api.PrepareForUpdate(res, next, cur)
			errs = api.ValidateUpdate(res, next, cur)
		}
		if len(errs) > 0 {
			return invalid(res, next.GetName(), errs)
		}
		return nil
	}
}
