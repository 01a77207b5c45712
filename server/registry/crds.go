package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// crdResource is the CustomResourceDefinition kind: writes to it serve,
// change and stop serving custom kinds through the registry's Kinds.
var crdResource = api.MustLookup(apiextv1.GroupName, "v1", "customresourcedefinitions")

// crdAdmitter names and establishes a CustomResourceDefinition as it is
// written: NamesAccepted (or the conflict that refused the names),
// Established, acceptedNames and storedVersions are set on the object
// stored, and once it is stored its served versions are served. Status
// writes and definitions being deleted are left alone.
type crdAdmitter struct{ r *Registry }

var _ Admitter = crdAdmitter{}

func (c crdAdmitter) Admit(ctx context.Context, a *Attributes) (func(bool), error) {
	if a.Resource != crdResource || a.Subresource != "" || a.Object.GetDeletionTimestamp() != nil {
		return nil, nil
	}
	crd := a.Object.(*apiextv1.CustomResourceDefinition)
	conflict, err := c.r.crdNameConflict(ctx, crd)
	if err != nil {
		return nil, err
	}
	served, err := establish(crd, conflict, c.r.now)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	name := crd.Name
	return func(stored bool) {
		if stored {
			c.r.kinds.serveCRD(name, served)
		}
	}, nil
}

// establish sets the CRD's names status and returns the kinds its served
// versions are, none when its names conflict with another kind's.
func establish(crd *apiextv1.CustomResourceDefinition, conflict *nameConflict, now func() time.Time) ([]*api.Resource, error) {
	t := metav1.NewTime(now().UTC())
	if conflict != nil {
		api.SetCRDCondition(crd, apiextv1.CustomResourceDefinitionCondition{Type: apiextv1.NamesAccepted,
			Status: apiextv1.ConditionFalse, Reason: conflict.reason, Message: conflict.message, LastTransitionTime: t})
		api.SetCRDCondition(crd, apiextv1.CustomResourceDefinitionCondition{Type: apiextv1.Established,
			Status: apiextv1.ConditionFalse, Reason: "NotAccepted", Message: "not all names are accepted", LastTransitionTime: t})
		return nil, nil
	}
	crd.Status.AcceptedNames = crd.Spec.Names
	api.SetCRDCondition(crd, apiextv1.CustomResourceDefinitionCondition{Type: apiextv1.NamesAccepted,
		Status: apiextv1.ConditionTrue, Reason: "NoConflicts", Message: "no conflicts found", LastTransitionTime: t})
	api.SetCRDCondition(crd, apiextv1.CustomResourceDefinitionCondition{Type: apiextv1.Established,
		Status: apiextv1.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted", LastTransitionTime: t})
	if sv := api.StorageVersion(crd); sv != "" && !hasString(crd.Status.StoredVersions, sv) {
		crd.Status.StoredVersions = append(crd.Status.StoredVersions, sv)
	}
	return servedKinds(crd)
}

// servedKinds are the kinds of the CRD's served versions.
func servedKinds(crd *apiextv1.CustomResourceDefinition) ([]*api.Resource, error) {
	var out []*api.Resource
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		res, err := api.NewCustomResource(crd, v.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// serveStoredCRDs serves the established definitions in the datastore, at
// start. One that no longer compiles is logged and left unserved.
func (r *Registry) serveStoredCRDs(ctx context.Context) error {
	list, err := r.List(ctx, crdResource, "", ListOptions{})
	if err != nil {
		return fmt.Errorf("serve stored CustomResourceDefinitions: %w", err)
	}
	for _, obj := range list.Items {
		crd := obj.(*apiextv1.CustomResourceDefinition)
		if !established(crd) || crd.DeletionTimestamp != nil {
			continue
		}
		served, err := servedKinds(crd)
		if err != nil {
			r.log.Error("serve stored CustomResourceDefinition", "crd", crd.Name, "err", err)
			continue
		}
		r.kinds.serveCRD(crd.Name, served)
	}
	return nil
}

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
	err = r.deleteCustomObjects(ctx, crd)
	var out api.Object
	if err == nil {
		out, err = r.removeObject(ctx, crdResource, "", name, opts)
	}
	if err != nil && established(crd) {
		r.reserveCRD(crd) // the CRD stays: so do its kinds
	}
	return out, err
}

// reserveCRD serves a CRD again after its deletion failed.
func (r *Registry) reserveCRD(crd *apiextv1.CustomResourceDefinition) {
	if kinds, err := servedKinds(crd); err == nil {
		r.kinds.serveCRD(crd.Name, kinds)
	}
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
