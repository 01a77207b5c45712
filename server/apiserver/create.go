package apiserver

import (
	"net/http"
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
	addWarnings(w, warnings)
	created, err := a.reg.Create(r.Context(), ri.res, ri.namespace, obj, opts)
	if err != nil {
		return err
	}
	return a.writeObject(w, ri, http.StatusCreated, created)
}
