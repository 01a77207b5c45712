package registry

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/bramble-edge/bramble/api"
)

// fieldManager tracks managedFields for server-side apply.
type fieldManager = *managedfields.FieldManager

type fieldManagerEntry struct {
	res *api.Resource // the row fm was made for
	fm  fieldManager
}

// fieldManagerFor is the field manager of a kind (and subresource), made
// on first use. A row that replaced another of the same name (a
// CustomResourceDefinition's new schema) gets a new one.
func (r *Registry) fieldManagerFor(res *api.Resource, sub string) (fieldManager, error) {
	key := res.Group + "/" + res.Version + "/" + res.Name + "/" + sub
	r.fieldManagersMu.Lock()
	defer r.fieldManagersMu.Unlock()
	if e, ok := r.fieldManagers[key]; ok && e.res == res {
		return e.fm, nil
	}
	types, err := r.typeConverterFor(res)
	if err != nil {
		return nil, err
	}
	conv := applyConversions(res)
	fm, err := managedfields.NewDefaultFieldManager(types, conv, conv, conv,
		res.GroupVersionKind(), res.GroupVersion(), sub, nil)
	if err != nil {
		return nil, fmt.Errorf("field manager for %s: %w", res.Name, err)
	}
	r.fieldManagers[key] = fieldManagerEntry{res: res, fm: fm}
	return fm, nil
}

// Applied is the outcome of a server-side apply.
type Applied struct {
	Object   api.Object
	Created  bool
	Warnings []string
}

// Apply merges an apply configuration (YAML or JSON) into the object of res
// named name under opts.FieldManager, or creates the object from it when
// it does not exist yet (not for subresources).
func (r *Registry) Apply(ctx context.Context, res *api.Resource, ns, name, sub string, body []byte, opts WriteOptions) (*Applied, error) {
	if opts.FieldManager == "" {
		return nil, BadRequest("fieldManager: Required value: is required for apply patch")
	}
	patchObj, warnings, err := decodeApplyPatch(res, ns, name, body, opts)
	if err != nil {
		return nil, err
	}
	fm, err := r.fieldManagerFor(res, sub)
	if err != nil {
		return nil, err
	}
	out := &Applied{Warnings: opts.warnings(warnings)}
	out.Object, err = r.applyUpdate(ctx, res, ns, name, sub, fm, patchObj, opts)
	if apierrors.IsNotFound(err) && sub == "" {
		out.Created = true
		out.Object, err = r.applyCreate(ctx, res, ns, name, fm, patchObj, opts)
		if apierrors.IsAlreadyExists(err) {
			out.Created = false
			out.Object, err = r.applyUpdate(ctx, res, ns, name, sub, fm, patchObj, opts)
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (r *Registry) applyUpdate(ctx context.Context, res *api.Resource, ns, name, sub string, fm fieldManager, patchObj *unstructured.Unstructured, opts WriteOptions) (api.Object, error) {
	return r.Mutate(ctx, Mutation{
		Resource: res, Namespace: ns, Name: name, Subresource: sub, DryRun: opts.DryRun,
		Mutate: func(cur api.Object) (api.Object, error) { return runApply(fm, cur, patchObj, opts) },
	})
}

func (r *Registry) applyCreate(ctx context.Context, res *api.Resource, ns, name string, fm fieldManager, patchObj *unstructured.Unstructured, opts WriteOptions) (api.Object, error) {
	live := res.New()
	live.GetObjectKind().SetGroupVersionKind(res.GroupVersionKind())
	live.SetName(name)
	live.SetNamespace(ns)
	obj, err := runApply(fm, live, patchObj, opts)
	if err != nil {
		return nil, err
	}
	return r.Create(ctx, res, ns, obj, opts)
}

// runApply merges patchObj into live. Conflicts come back as 409 Status
// errors from the field manager; other failures are the request's fault.
func runApply(fm fieldManager, live api.Object, patchObj *unstructured.Unstructured, opts WriteOptions) (api.Object, error) {
	out, err := fm.Apply(live, patchObj.DeepCopy(), opts.FieldManager, opts.Force)
	if err != nil {
		var se apierrors.APIStatus
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, BadRequest("apply: %v", err)
	}
	obj, ok := out.(api.Object)
	if !ok {
		return nil, fmt.Errorf("apply returned %T, not an API object", out)
	}
	return obj, nil
}

// decodeApplyPatch parses an apply configuration, checks it names res's
// kind and the object, and collects unknown-field warnings.
func decodeApplyPatch(res *api.Resource, ns, name string, body []byte, opts WriteOptions) (*unstructured.Unstructured, []string, error) {
	js, err := api.YAMLToJSON(body, opts.strict())
	if err != nil {
		return nil, nil, BadRequest("error decoding YAML: %v", err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		return nil, nil, BadRequest("error decoding apply configuration: %v", err)
	}
	if gvk := u.GroupVersionKind(); gvk != res.GroupVersionKind() {
		return nil, nil, BadRequest("the apply configuration is apiVersion %q kind %q, but the URL is for %s %s",
			u.GetAPIVersion(), u.GetKind(), res.APIVersion(), res.Kind)
	}
	if err := identifyApplied(res, ns, name, u); err != nil {
		return nil, nil, err
	}
	_, warnings, err := api.DecodeJSON(res, js, opts.strict())
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	return u, warnings, nil
}

// identifyApplied fills in or checks the name and namespace of an apply
// configuration against the URL's.
func identifyApplied(res *api.Resource, ns, name string, u *unstructured.Unstructured) error {
	if u.GetName() == "" {
		u.SetName(name)
	}
	if u.GetName() != name {
		return BadRequest("the name of the object (%s) does not match the name on the URL (%s)", u.GetName(), name)
	}
	if !res.Namespaced {
		return nil
	}
	if u.GetNamespace() == "" {
		u.SetNamespace(ns)
	}
	if u.GetNamespace() != ns {
		return BadRequest("the namespace of the object (%s) does not match the namespace on the URL (%s)", u.GetNamespace(), ns)
	}
	return nil
}
