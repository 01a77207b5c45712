package apiserver

import (
	"net/http"
)

// delete answers DELETE on one object: it is removed at once (200), or,
// while it has finalizers, marked with a deletionTimestamp (202). The answer
// is the object.
func (a *API) delete(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	opts, err := a.deleteOptions(w, r, ri)
	if err != nil {
		return err
	}
	obj, err := a.reg.Delete(r.Context(), ri.res, ri.namespace, ri.name, opts)
	if err != nil {
		return err
	}
	code := http.StatusOK
	if !(ri.res.Group == "" && ri.res.Name == "namespaces") && len(obj.GetFinalizers()) > 0 {
		code = http.StatusAccepted // deletion pending until the finalizers go
	}
	return a.writeObject(w, ri, code, obj)
}

// deleteCollection answers DELETE on a collection: every object passing
// the selectors is deleted; the answer lists them.
func (a *API) deleteCollection(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	opts, err := a.deleteOptions(w, r, ri)
	if err != nil {
		return err
	}
	lq, err := parseListQuery(ri.res, ri.query)
	if err != nil {
		return err
	}
	deleted, err := a.reg.DeleteCollection(r.Context(), ri.res, ri.namespace, lq.ListOptions, opts)
	if err != nil {
		return err
	}
	return a.writeList(w, ri, deleted)
}
