package apiserver

import (
	"net/http"

	"github.com/bramble-edge/bramble/api"
)

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
	addWarnings(w, append(warnings, newObjectWarnings(ri.res, obj)...))
	auditName(r, obj.GetName())
	created, err := a.reg.Create(r.Context(), ri.res, ri.namespace, obj, opts)
	if err != nil {
		return err
	}
	auditName(r, created.GetName()) // generateName
	return a.writeObject(w, ri, http.StatusCreated, created)
}

// storedOnlyWarnings tells a client creating an object of a kind bramble
// only stores (api.Resource.StoredOnly) what does not happen yet.
func storedOnlyWarnings(res *api.Resource) []string {
	if res.StoredOnly == "" {
		return nil
	}
	return []string{res.GroupResource().String() + " are stored only: " + res.StoredOnly + " (see docs/API.md)"}
}

// newObjectWarnings are the Warning headers of a create: stored-only
// kinds, and what the object asks for that bramble does not do yet.
func newObjectWarnings(res *api.Resource, obj api.Object) []string {
	return append(storedOnlyWarnings(res), api.CreateWarnings(obj)...)
}
