package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/bramble-edge/bramble/api"
)

// fieldManager tracks managedFields for server-side apply.
type fieldManager = *managedfields.FieldManager

// Kinds are merged with a deduced schema: maps field by field, lists as
// atomic values. bramble has no OpenAPI schemas for the built-in kinds.
var deducedTypes = managedfields.NewDeducedTypeConverter()

func (a *API) fieldManagerFor(res *api.Resource, sub string) (fieldManager, error) {
	key := res.Group + "/" + res.Name + "/" + sub
	a.fieldManagersMu.Lock()
	defer a.fieldManagersMu.Unlock()
	if fm, ok := a.fieldManagers[key]; ok {
		return fm, nil
	}
	fm, err := managedfields.NewDefaultFieldManager(deducedTypes, api.Scheme, api.Scheme, api.Scheme,
		res.GroupVersionKind(), res.GroupVersion(), sub, nil)
	if err != nil {
		return nil, fmt.Errorf("field manager for %s: %w", res.Name, err)
	}
	a.fieldManagers[key] = fm
	return fm, nil
}

// apply answers an application/apply-patch+yaml PATCH: the object is
// merged with the applied configuration under opts.fieldManager, or
// created from it when it does not exist yet.
func (a *API) apply(w http.ResponseWriter, r *http.Request, ri *requestInfo, opts writeOptions, body []byte) error {
	if opts.fieldManager == "" {
		return badRequest("fieldManager: Required value: is required for apply patch")
	}
	patchObj, warnings, err := decodeApplyPatch(ri, body, opts.validation)
	if err != nil {
		return err
	}
	fm, err := a.fieldManagerFor(ri.res, ri.sub)
	if err != nil {
		return err
	}
	ctx := r.Context()
	code := http.StatusOK
	out, err := a.applyUpdate(ctx, ri, fm, patchObj, opts)
	if apierrors.IsNotFound(err) && ri.sub == "" {
		code = http.StatusCreated
		out, err = a.applyCreate(ctx, ri, fm, patchObj, opts)
		if apierrors.IsAlreadyExists(err) {
			code = http.StatusOK
			out, err = a.applyUpdate(ctx, ri, fm, patchObj, opts)
		}
	}
	if err != nil {
		return err
	}
	addWarnings(w, warnings)
	return a.writeObject(w, ri, code, out)
}

func (a *API) applyUpdate(ctx context.Context, ri *requestInfo, fm fieldManager, patchObj *unstructured.Unstructured, opts writeOptions) (api.Object, error) {
	return a.updateObject(ctx, writeReq{
		res: ri.res, ns: ri.namespace, name: ri.name, dryRun: opts.dryRun,
		mutate: func(cur api.Object) (api.Object, error) {
			return runApply(fm, cur, patchObj, opts)
		},
		admit: admitUpdate(ri.res, ri.sub),
	})
}

func (a *API) applyCreate(ctx context.Context, ri *requestInfo, fm fieldManager, patchObj *unstructured.Unstructured, opts writeOptions) (api.Object, error) {
	live := ri.res.New()
	live.GetObjectKind().SetGroupVersionKind(ri.res.GroupVersionKind())
	live.SetName(ri.name)
	live.SetNamespace(ri.namespace)
	obj, err := runApply(fm, live, patchObj, opts)
	if err != nil {
		return nil, err
	}
	return a.createObject(ctx, ri.res, ri.namespace, obj, opts.dryRun)
}

// runApply merges patchObj into live. Conflicts come back as 409 Status
// errors from the field manager; other failures are the request's fault.
func runApply(fm fieldManager, live api.Object, patchObj *unstructured.Unstructured, opts writeOptions) (api.Object, error) {
	out, err := fm.Apply(live, patchObj.DeepCopy(), opts.fieldManager, opts.force)
	if err != nil {
		var se apierrors.APIStatus
		if errors.As(err, &se) {
			return nil, err
		}
		return nil, badRequest("apply: %v", err)
	}
	obj, ok := out.(api.Object)
	if !ok {
		return nil, fmt.Errorf("apply returned %T, not a typed object", out)
	}
	return obj, nil
}

// decodeApplyPatch parses an apply configuration (YAML or JSON), checks it
// names the URL's kind and object, and collects unknown-field warnings.
func decodeApplyPatch(ri *requestInfo, body []byte, validation string) (*unstructured.Unstructured, []string, error) {
	strict := validation == validationStrict
	js, err := api.YAMLToJSON(body, strict)
	if err != nil {
		return nil, nil, badRequest("error decoding YAML: %v", err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		return nil, nil, badRequest("error decoding apply configuration: %v", err)
	}
	if gvk := u.GroupVersionKind(); gvk != ri.res.GroupVersionKind() {
		return nil, nil, badRequest("the apply configuration is apiVersion %q kind %q, but the URL is for %s %s",
			u.GetAPIVersion(), u.GetKind(), ri.res.APIVersion(), ri.res.Kind)
	}
	if err := identifyApplied(ri, u); err != nil {
		return nil, nil, err
	}
	_, warnings, err := api.DecodeJSON(ri.res, js, strict)
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	if validation == validationIgnore {
		warnings = nil
	}
	return u, warnings, nil
}

// identifyApplied fills in or checks the name and namespace of an apply
// configuration against the URL.
func identifyApplied(ri *requestInfo, u *unstructured.Unstructured) error {
	if u.GetName() == "" {
		u.SetName(ri.name)
	}
	if u.GetName() != ri.name {
		return badRequest("the name of the object (%s) does not match the name on the URL (%s)", u.GetName(), ri.name)
	}
	if !ri.res.Namespaced {
		return nil
	}
	if u.GetNamespace() == "" {
		u.SetNamespace(ri.namespace)
	}
	if u.GetNamespace() != ri.namespace {
		return badRequest("the namespace of the object (%s) does not match the namespace on the URL (%s)", u.GetNamespace(), ri.namespace)
	}
	return nil
}
