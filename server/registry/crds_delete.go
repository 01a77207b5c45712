package registry

import (
	"context"
	"errors"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// deleteCRD deletes a CustomResourceDefinition with its objects: its kinds
// stop being served, every object of it is deleted (through the registry,
// so ownership propagation runs; those a finalizer would keep are removed
// all the same, as nothing serves their kind any more), then the
// definition itself.
func (r *Registry) deleteCRD(ctx context.Context, name string, opts *DeleteOptions) (api.Object, error) {
	cur, _, err := r.load(ctx, crdResource, "", name)
	if err != nil {
		return nil, err
	}
	if err := checkDeletePreconditions(crdResource, cur, opts.Preconditions); err != nil {
		return nil, err
	}
	if opts.DryRun {
		return r.removeObject(ctx, crdResource, "", name, opts)
	}
	crd := cur.(*apiextv1.CustomResourceDefinition)
	r.kinds.serveCRD(name, nil)
	if err := r.deleteCustomObjects(ctx, crd); err != nil {
		return nil, err
	}
	return r.removeObject(ctx, crdResource, "", name, opts)
}

// deleteCustomObjects deletes every stored object of the definition.
func (r *Registry) deleteCustomObjects(ctx context.Context, crd *apiextv1.CustomResourceDefinition) error {
	res, err := api.NewCustomResource(crd, api.StorageVersion(crd))
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if _, err := r.DeleteCollection(ctx, res, "", ListOptions{}, nil); err != nil {
		return err
	}
	for {
		page, err := r.store.List(ctx, res.Prefix(""), datastore.ListOptions{Limit: 500})
		if err != nil {
			return StoreError(err, res, "")
		}
		if len(page.Items) == 0 {
			return nil
		}
		for _, kv := range page.Items {
			if _, _, err := r.store.Delete(ctx, kv.Key, kv.ModRevision); err != nil && !isGone(err) {
				return StoreError(err, res, "")
			}
		}
	}
}

func isGone(err error) bool {
	return errors.Is(err, datastore.ErrNotFound) || errors.Is(err, datastore.ErrConflict)
}
