package apiserver

import (
	"net/http"

	policyv1 "k8s.io/api/policy/v1"

	"github.com/bramble-edge/bramble/api"
)

// createEviction serves POST pods/{name}/eviction (what kubectl drain
// uses): the registry deletes the pod unless a PodDisruptionBudget
// forbids it (429).
func (a *API) createEviction(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	obj, opts, _, err := a.readRequestObject(w, r, ri, api.EvictionResource)
	if err != nil {
		return err
	}
	ev := obj.(*policyv1.Eviction)
	if ev.Name == "" {
		ev.Name = ri.name
	}
	if ev.Name != ri.name {
		return badRequest("name in URL does not match name in Eviction object")
	}
	if ev.Namespace != "" && ev.Namespace != ri.namespace {
		return badRequest("namespace in URL does not match namespace in Eviction object")
	}
	if err := a.reg.Evict(r.Context(), ri.namespace, ri.name, ev, opts.DryRun); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, successStatus(http.StatusCreated))
	return nil
}
