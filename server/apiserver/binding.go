package apiserver

import (
	"net/http"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// createBinding answers POST pods/{name}/binding: the scheduler's way to
// put a pod on a node. It sets spec.nodeName and the PodScheduled
// condition; a pod that is already bound gives 409.
func (a *API) createBinding(w http.ResponseWriter, r *http.Request, ri *requestInfo) error {
	obj, opts, _, err := a.readRequestObject(w, r, ri, api.BindingResource)
	if err != nil {
		return err
	}
	b := obj.(*corev1.Binding)
	if err := checkBinding(ri, b); err != nil {
		return err
	}
	if err := a.reg.Bind(r.Context(), ri.namespace, b, opts.DryRun); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, successStatus(http.StatusCreated))
	return nil
}

// checkBinding fills in or checks the binding's name and namespace against
// the URL's; the registry validates the rest.
func checkBinding(ri *requestInfo, b *corev1.Binding) error {
	if b.Name == "" {
		b.Name = ri.name
	}
	if b.Name != ri.name {
		return badRequest("the name of the binding (%s) does not match the pod name on the URL (%s)", b.Name, ri.name)
	}
	if b.Namespace != "" && b.Namespace != ri.namespace {
		return badRequest("the namespace of the binding (%s) does not match the namespace on the URL (%s)", b.Namespace, ri.namespace)
	}
	return nil
}
