package controllertest

import (
	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// FinishPodDeletions plays the nodes' part in a pod's graceful deletion,
// which controller tests have no agents for: a pod that gets a
// deletionTimestamp is deleted with grace 0 (and its UID) at once, as an
// agent does once it has stopped the pod. Call it before Start.
func (e *Env) FinishPodDeletions() {
	pods := e.Cache.Informer(Resource("", "pods"))
	finish := func(o api.Object) {
		if o.GetDeletionTimestamp() == nil {
			return
		}
		zero := int64(0)
		// NotFound or a UID conflict: gone already; anything else the
		// test sees as a pod that stays.
		_ = e.Client.Delete(e.Ctx, Resource("", "pods"), o.GetNamespace(), o.GetName(),
			controllers.DeleteOptions{UID: string(o.GetUID()), GracePeriod: &zero})
	}
	pods.AddHandler(controllers.Handler{OnAdd: finish, OnUpdate: func(_, cur api.Object) { finish(cur) }})
}
