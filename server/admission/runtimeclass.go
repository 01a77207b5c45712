package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

var runtimeClassesResource = api.MustLookup("node.k8s.io", "v1", "runtimeclasses")

// RuntimeClass refuses a new pod naming a RuntimeClass that does not
// exist, and gives a pod its class's overhead, node selector and
// tolerations, as upstream's RuntimeClass admission does.
type RuntimeClass struct {
	reg *registry.Registry
}

var _ registry.Admitter = (*RuntimeClass)(nil)

// NewRuntimeClass makes the runtime class plugin on reg.
func NewRuntimeClass(reg *registry.Registry) *RuntimeClass { return &RuntimeClass{reg: reg} }

// Admit applies the pod's runtime class.
func (p *RuntimeClass) Admit(ctx context.Context, a *registry.Attributes) (func(bool), error) {
	pod, ok := a.Object.(*corev1.Pod)
	if !ok || !a.Create() || a.Subresource != "" {
		return nil, nil
	}
	rc, err := p.class(ctx, a, pod)
	if err != nil {
		return nil, err
	}
	if err := setOverhead(a, pod, rc); err != nil {
		return nil, err
	}
	return nil, setScheduling(a, pod, rc)
}

// class reads the pod's runtime class; nil when it names none.
func (p *RuntimeClass) class(ctx context.Context, a *registry.Attributes, pod *corev1.Pod) (*nodev1.RuntimeClass, error) {
	if pod.Spec.RuntimeClassName == nil || *pod.Spec.RuntimeClassName == "" {
		return nil, nil
	}
	name := *pod.Spec.RuntimeClassName
	obj, err := p.reg.Get(ctx, runtimeClassesResource, "", name)
	if apierrors.IsNotFound(err) {
		return nil, forbidden(a, fmt.Sprintf("pod rejected: RuntimeClass %q not found", name))
	}
	if err != nil {
		return nil, fmt.Errorf("read runtime class %s: %w", name, err)
	}
	return obj.(*nodev1.RuntimeClass), nil
}

// setOverhead sets spec.overhead from the class; a pod may not bring an
// overhead of its own that differs, nor one without a class defining it.
func setOverhead(a *registry.Attributes, pod *corev1.Pod, rc *nodev1.RuntimeClass) error {
	if rc == nil || rc.Overhead == nil {
		if len(pod.Spec.Overhead) > 0 {
			return forbidden(a, "pod rejected: Overhead set without corresponding RuntimeClass defined Overhead")
		}
		return nil
	}
	if len(pod.Spec.Overhead) > 0 && !equality.Semantic.DeepEqual(pod.Spec.Overhead, rc.Overhead.PodFixed) {
		return forbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
	}
	pod.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
	return nil
}

// setScheduling merges the class's node selector (a conflicting value is
// refused) and adds its tolerations the pod lacks.
func setScheduling(a *registry.Attributes, pod *corev1.Pod, rc *nodev1.RuntimeClass) error {
	if rc == nil || rc.Scheduling == nil {
		return nil
	}
	for k, v := range rc.Scheduling.NodeSelector {
		if cur, ok := pod.Spec.NodeSelector[k]; ok && cur != v {
			return forbidden(a, fmt.Sprintf("conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", k, v, k, cur))
		}
		if pod.Spec.NodeSelector == nil {
			pod.Spec.NodeSelector = map[string]string{}
		}
		pod.Spec.NodeSelector[k] = v
	}
	for _, t := range rc.Scheduling.Tolerations {
		if !hasToleration(pod.Spec.Tolerations, t) {
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, t)
		}
	}
	return nil
}

func hasToleration(ts []corev1.Toleration, t corev1.Toleration) bool {
	for _, have := range ts {
		if equality.Semantic.DeepEqual(have, t) {
			return true
		}
	}
	return false
}
