package registry

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
)

// Resources the registry itself reads and writes.
var (
	namespacesResource = api.MustLookup("", "v1", "namespaces")
	podsResource       = api.MustLookup("", "v1", "pods")
)

// maxGenerateNameAttempts bounds retries when a generated name is taken.
const maxGenerateNameAttempts = 5

// Create admits obj (server fields, generateName, the kind's strategy,
// validation) as a new object of res in namespace ns and stores it, unless
// opts.DryRun. A generated name that is already taken is generated again.
// obj is the caller's to keep only when the call fails.
func (r *Registry) Create(ctx context.Context, res *api.Resource, ns string, obj api.Object, opts WriteOptions) (api.Object, error) {
	generate, err := r.checkCreate(ctx, res, ns, obj)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		out, taken, err := r.createOnce(ctx, res, candidate(obj, generate), opts, false)
		if taken && generate && attempt < maxGenerateNameAttempts {
			continue
		}
		return out, err
	}
}

// CreateNew is Create of obj, an object made for this call alone, which
// the registry changes and keeps rather than copying it when its name is
// to be generated. again makes another like it, to try once more when the
// generated name is taken (it may be nil when obj has its name). obj
// shares nothing with other objects; once stored it is the shared cache's
// (handed over uncopied, see giveNew), and the object returned shares its
// maps, slices and pointers: the caller reads it and changes nothing.
func (r *Registry) CreateNew(ctx context.Context, res *api.Resource, ns string, obj api.Object, again func() api.Object, opts WriteOptions) (api.Object, error) {
	generate, err := r.checkCreate(ctx, res, ns, obj)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			obj = again()
			if err := sameNamespace(res, ns, obj); err != nil {
				return nil, err
			}
		}
		if generate {
			obj.SetName(generateName(obj.GetGenerateName()))
		}
		out, taken, err := r.createOnce(ctx, res, obj, opts, true)
		if taken && generate && attempt < maxGenerateNameAttempts {
			continue
		}
		return out, err
	}
}

// checkCreate checks what a create may not start without (the namespace
// matches and is open) and says whether the name is to be generated.
func (r *Registry) checkCreate(ctx context.Context, res *api.Resource, ns string, obj api.Object) (generate bool, err error) {
	if err := sameNamespace(res, ns, obj); err != nil {
		return false, err
	}
	if err := r.checkNamespaceOpen(ctx, res, obj); err != nil {
		return false, err
	}
	return generatesName(obj), nil
}

// createOnce admits and stores cand, a candidate with its name; taken
// reports that the store refused the name as already taken. give: cand
// is the registry's own to hand to the shared cache (CreateNew).
func (r *Registry) createOnce(ctx context.Context, res *api.Resource, cand api.Object, opts WriteOptions, give bool) (out api.Object, taken bool, err error) {
	if err := r.admitCreate(res, cand); err != nil {
		return cand, false, err
	}
	release, err := r.runAdmitters(ctx, &Attributes{Resource: res, Object: cand, DryRun: opts.DryRun})
	if err != nil || opts.DryRun {
		release(false)
		return cand, false, err
	}
	out, rev, err := r.storeCreate(ctx, res, cand, give)
	release(err == nil)
	if err != nil {
		return nil, errors.Is(err, datastore.ErrKeyExists), StoreError(err, res, cand.GetName())
	}
	out.SetResourceVersion(FormatResourceVersion(rev))
	return out, false, nil
}

// storeCreate writes a new, admitted object. out is obj, or, when obj
// was given to the shared cache, a shallow copy of it to answer with.
func (r *Registry) storeCreate(ctx context.Context, res *api.Resource, obj api.Object, give bool) (out api.Object, rev int64, err error) {
	data, err := encodeStored(obj)
	if err != nil {
		return nil, 0, err
	}
	key := res.Key(obj.GetNamespace(), obj.GetName())
	out = obj
	var offered *informer.Offered
	if give {
		out, offered = r.giveNew(res, key, data, obj)
	} else {
		offered = r.offer(res, key, data, obj)
	}
	rev, err = r.store.Create(ctx, key, data)
	offered.Written(rev, err)
	return out, rev, err
}

// generatesName says whether obj's name is to be generated; Create then
// admits copies of obj and never modifies obj itself.
func generatesName(obj api.Object) bool {
	return obj.GetName() == "" && obj.GetGenerateName() != ""
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
func (r *Registry) admitCreate(res *api.Resource, obj api.Object) error {
	r.setCreateFields(obj)
	st := res.Strategy()
	st.Default(obj)
	st.PrepareForCreate(res, obj)
	errs := st.ValidateCreate(res, obj)
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
func (r *Registry) checkNamespaceOpen(ctx context.Context, res *api.Resource, obj api.Object) error {
	if !res.Namespaced {
		return nil
	}
	ns, ok := r.cachedNamespace(obj.GetNamespace())
	if !ok {
		nsObj, _, err := r.load(ctx, namespacesResource, "", obj.GetNamespace())
		if err != nil {
			return err
		}
		ns = nsObj.(*corev1.Namespace)
	}
	if ns.DeletionTimestamp != nil || ns.Status.Phase == corev1.NamespaceTerminating {
		return apierrors.NewForbidden(res.GroupResource(), obj.GetName(),
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", obj.GetNamespace()))
	}
	return nil
}
