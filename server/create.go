package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// Resources the server itself reads and writes.
var (
	namespacesResource = mustLookup("", "v1", "namespaces")
	podsResource       = mustLookup("", "v1", "pods")
	secretsResource    = mustLookup("", "v1", "secrets")
)

func mustLookup(group, version, name string) *api.Resource {
	r, ok := api.Lookup(group, version, name)
	if !ok {
		panic(fmt.Sprintf("api registry has no %s/%s %s", group, version, name))
	}
	return r
}

// maxGenerateNameAttempts bounds retries when a generated name is taken.
const maxGenerateNameAttempts = 5

// create answers POST on a collection.
func (a *API) create(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	obj, opts, warnings, err := a.readRequestObject(w, r, ri, ri.res)
	if err != nil {
		return err
	}
	if ri.createAuthz {
		attrs := ri.attributes()
		attrs.Name = obj.GetName()
		if err := a.authorize(r.Context(), ri, attrs); err != nil {
			return err
		}
	}
	addWarnings(w, warnings)
	created, err := a.createObject(r.Context(), ri.res, ri.namespace, obj, opts.dryRun)
	if err != nil {
		return err
	}
	return a.writeObject(w, ri, http.StatusCreated, created)
}

// createObject admits obj (server fields, generateName, PrepareForCreate,
// ValidateCreate) and stores it, unless dryRun. A generated name that is
// already taken is generated again.
func (a *API) createObject(ctx context.Context, res *api.Resource, ns string, obj api.Object, dryRun bool) (api.Object, error) {
	if err := sameNamespace(res, ns, obj); err != nil {
		return nil, err
	}
	if err := a.checkNamespaceOpen(ctx, res, obj); err != nil {
		return nil, err
	}
	generate := obj.GetName() == "" && obj.GetGenerateName() != ""
	for attempt := 1; ; attempt++ {
		cand := candidate(obj, generate)
		if err := a.admitCreate(res, cand); err != nil || dryRun {
			return cand, err
		}
		data, err := encodeStored(cand)
		if err != nil {
			return nil, err
		}
		rev, err := a.store.Create(ctx, res.Key(cand.GetNamespace(), cand.GetName()), data)
		if errors.Is(err, datastore.ErrKeyExists) && generate && attempt < maxGenerateNameAttempts {
			continue
		}
		if err != nil {
			return nil, storeError(err, res, cand.GetName())
		}
		cand.SetResourceVersion(formatRV(rev))
		return cand, nil
	}
}

// candidate is obj itself, or a copy with a freshly generated name.
func candidate(obj api.Object, generate bool) api.Object {
	if !generate {
		return obj
	}
	cand := obj.DeepCopyObject().(api.Object)
	cand.SetName(generateName(obj.GetGenerateName()))
	return cand
}

// admitCreate runs create admission: server-set metadata (uid before
// PrepareForCreate, which a Job's generated selector needs), defaulting and
// preparation, then validation.
func (a *API) admitCreate(res *api.Resource, obj api.Object) error {
	a.setCreateFields(obj)
	api.Default(obj)
	api.PrepareForCreate(res, obj)
	errs := api.ValidateCreate(res, obj)
	if obj.GetName() == "" && len(errs) == 0 {
		errs = field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name or generateName is required")}
	}
	if len(errs) > 0 {
		return invalid(res, obj.GetName(), errs)
	}
	return nil
}

// checkNamespaceOpen refuses namespaced creates in a namespace that does
// not exist (404) or is being deleted (403).
func (a *API) checkNamespaceOpen(ctx context.Context, res *api.Resource, obj api.Object) error {
	if !res.Namespaced {
		return nil
	}
	nsObj, _, err := a.load(ctx, namespacesResource, "", obj.GetNamespace())
	if err != nil {
		return err
	}
	if nsObj.GetDeletionTimestamp() != nil || nsObj.(*corev1.Namespace).Status.Phase == corev1.NamespaceTerminating {
		return apierrors.NewForbidden(res.GroupResource(), obj.GetName(),
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", obj.GetNamespace()))
	}
	return nil
}
