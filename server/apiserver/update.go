package apiserver

import (
	"net/http"
)

// update answers PUT on an object or its status.
func (a *API) update(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	obj, opts, warnings, err := a.readRequestObject(w, r, ri, ri.res)
	if err != nil {
		return err
	}
	if obj.GetName() != ri.name {
		return badRequest("the name of the object (%s) does not match the name on the URL (%s)", obj.GetName(), ri.name)
	}
	addWarnings(w, warnings)
	out, err := a.reg.Update(r.Context(), ri.res, ri.namespace, ri.name, ri.sub, obj, opts.DryRun)
	if err != nil {
		return err
	}
	return a.writeObject(w, ri, http.StatusOK, out)
}
