package server

import (
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
)

var bindingGroupResource = schema.GroupResource{Resource: "pods/binding"}

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
	_, err = a.updateObject(r.Context(), writeReq{
		res: podsResource, ns: ri.namespace, name: ri.name, dryRun: opts.dryRun,
		mutate: func(cur api.Object) (api.Object, error) { return a.bindPod(cur.(*corev1.Pod), b) },
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, successStatus(http.StatusCreated))
	return nil
}

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
	var errs field.ErrorList
	if b.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), "the node to bind to"))
	}
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), b.Target.Kind, []string{"Node"}))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Binding"}, b.Name, errs)
	}
	return nil
}

// bindPod assigns pod to b's node.
func (a *API) bindPod(pod *corev1.Pod, b *corev1.Binding) (api.Object, error) {
	switch {
	case pod.DeletionTimestamp != nil:
		return nil, apierrors.NewConflict(bindingGroupResource, pod.Name, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name))
	case pod.Spec.NodeName != "":
		return nil, apierrors.NewConflict(bindingGroupResource, pod.Name, fmt.Errorf("pod %s is already assigned to node %q", pod.Name, pod.Spec.NodeName))
	case b.UID != "" && b.UID != pod.UID:
		return nil, apierrors.NewConflict(bindingGroupResource, pod.Name, fmt.Errorf("the binding is for pod uid %s, the pod's uid is %s", b.UID, pod.UID))
	}
	pod.Spec.NodeName = b.Target.Name
	for k, v := range b.Annotations {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[k] = v
	}
	setPodScheduled(pod, metav1.NewTime(a.now().UTC()))
	return pod, nil
}

func setPodScheduled(pod *corev1.Pod, now metav1.Time) {
	setCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now})
}
