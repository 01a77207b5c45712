package server

import (
	"context"
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// get answers GET on one object (or its status).
func (a *API) get(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	if _, err := parseResourceVersion(ri.query.Get("resourceVersion")); err != nil {
		return err
	}
	obj, _, err := a.load(r.Context(), ri.res, ri.namespace, ri.name)
	if err != nil {
		return err
	}
	return a.writeObject(w, ri, http.StatusOK, obj)
}

// list answers GET on a collection.
func (a *API) list(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	lq, err := parseListQuery(ri.res, ri.query)
	if err != nil {
		return err
	}
	objs, lm, err := a.listObjects(r.Context(), ri.res, ri.namespace, lq)
	if err != nil {
		return err
	}
	return a.writeList(w, ri, objs, lm)
}

// listObjects reads the objects under the collection that pass the
// selectors. With a limit it reads pages until it has at least limit
// matches or the collection ends, so a page may hold up to 2*limit-1 items.
func (a *API) listObjects(ctx context.Context, res *api.Resource, ns string, lq *listQuery) ([]api.Object, listMeta, error) {
	opts := datastore.ListOptions{Limit: lq.limit, Continue: lq.cont}
	if lq.rvMatch == string(metav1.ResourceVersionMatchExact) {
		opts.Revision = lq.rv
	}
	var out []api.Object
	for first := true; ; first = false {
		page, err := a.store.List(ctx, res.Prefix(ns), opts)
		if err != nil {
			return nil, listMeta{}, a.listError(ctx, err, lq)
		}
		if first && lq.rv > page.Revision {
			return nil, listMeta{}, tooLargeRV(lq.rv, page.Revision)
		}
		if out, err = appendSelected(out, res, page.Items, lq); err != nil {
			return nil, listMeta{}, err
		}
		if page.Continue == "" || lq.limit == 0 || int64(len(out)) >= lq.limit {
			lm := listMeta{rv: formatRV(page.Revision), cont: page.Continue}
			if !lq.filtered() {
				lm.remaining = page.Remaining
			}
			return out, lm, nil
		}
		opts.Continue, opts.Revision = page.Continue, 0
	}
}

// appendSelected decodes kvs and appends those that pass the selectors.
func appendSelected(out []api.Object, res *api.Resource, kvs []*datastore.KeyValue, lq *listQuery) ([]api.Object, error) {
	for _, kv := range kvs {
		obj, err := decodeStored(res, kv)
		if err != nil {
			return nil, err
		}
		if lq.selects(res, obj) {
			out = append(out, obj)
		}
	}
	return out, nil
}

// listError explains a failed list: a compacted revision or stale continue
// token is 410, a revision from the future 504, a bad token 400.
func (a *API) listError(ctx context.Context, err error, lq *listQuery) error {
	switch {
	case errors.Is(err, datastore.ErrCompacted) && lq.cont != "":
		return apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. " +
			"You can start a new list without the continue parameter.")
	case errors.Is(err, datastore.ErrCompacted):
		return apierrors.NewResourceExpired("The resourceVersion for the provided list is too old.")
	case errors.Is(err, datastore.ErrFutureRevision):
		cur, _ := a.store.CurrentRevision(ctx)
		return tooLargeRV(lq.rv, cur)
	case errors.Is(err, datastore.ErrClosed), errors.Is(err, context.Canceled):
		return storeError(err, nil, "")
	case lq.cont != "":
		return badRequest("continue %q: not a valid continue token: %v", lq.cont, err)
	}
	return storeError(err, nil, "")
}
