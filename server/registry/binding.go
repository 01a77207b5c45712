package registry

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
)

var bindingGroupResource = schema.GroupResource{Resource: "pods/binding"}

// Bind puts the pod b names in namespace ns on b's target node, like POST
// pods/{name}/binding: it sets spec.nodeName and the PodScheduled
// condition. A pod that is bound already, being deleted, or (when b.UID is
// set) replaced by a namesake gives 409.
func (r *Registry) Bind(ctx context.Context, ns string, b *corev1.Binding, dryRun bool) error {
	if err := validateBinding(b); err != nil {
		return err
	}
	if !dryRun {
		if done, err := r.bindCached(ctx, ns, b); done {
			return err
		}
	}
	_, err := r.Mutate(ctx, Mutation{
		Resource: podsResource, Namespace: ns, Name: b.Name, DryRun: dryRun,
		Mutate:        func(cur api.Object) (api.Object, error) { return r.bindPod(cur.(*corev1.Pod), b) },
		skipAdmission: true,
	})
	return err
}

func validateBinding(b *corev1.Binding) error {
	var errs field.ErrorList
	if b.Name == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), "the pod to bind"))
	}
	if b.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), "the node to bind to"))
	}
	for _, msg := range apivalidation.NameIsDNSSubdomain(b.Target.Name, false) {
		if b.Target.Name != "" {
			errs = append(errs, field.Invalid(field.NewPath("target", "name"), b.Target.Name, msg))
		}
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
func (r *Registry) bindPod(pod *corev1.Pod, b *corev1.Binding) (api.Object, error) {
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
	api.SetPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(r.now().UTC())})
	return pod, nil
}
