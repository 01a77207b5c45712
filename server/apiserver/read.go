package apiserver

import (
	"net/http"
)

// get answers GET on one object (or its status).
func (a *API) get(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	if _, err := parseResourceVersion(ri.query.Get("resourceVersion")); err != nil {
		return err
	}
	obj, err := a.reg.Get(r.Context(), ri.res, ri.namespace, ri.name)
	if err != nil {
		return err
	}
	return a.writeObject(w, ri, http.StatusOK, obj)
}

// list answers GET on a collection.
func (a *API) list(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	lq, err := parseListQuery(ri.res, ri.query)
	if err != nil {
		return err
	}
	list, err := a.reg.List(r.Context(), ri.res, ri.namespace, lq.ListOptions)
	if err != nil {
		return err
	}
	return a.writeList(w, ri, list)
}
