package admission

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

var limitRangesResource = api.MustLookup("", "v1", "limitranges")

// limitRangerAnnotation records on a pod which defaults a LimitRange set.
const limitRangerAnnotation = "kubernetes.io/limit-ranger"

// LimitRange applies the LimitRanges of a namespace to new pods and
// claims: containers get the default requests and limits they leave out,
// then pods (per container and in total) and claims are held to each
// range's min, max and maxLimitRequestRatio.
type LimitRange struct {
	reg *registry.Registry
}

var _ registry.Admitter = (*LimitRange)(nil)

// NewLimitRange makes the limit range plugin on reg.
func NewLimitRange(reg *registry.Registry) *LimitRange { return &LimitRange{reg: reg} }

// Admit defaults and checks a new pod or claim.
func (p *LimitRange) Admit(ctx context.Context, a *registry.Attributes) (func(bool), error) {
	if !a.Create() || a.Subresource != "" {
		return nil, nil
	}
	switch a.Object.(type) {
	case *corev1.Pod, *corev1.PersistentVolumeClaim:
	default:
		return nil, nil
	}
	items, err := p.reg.ListItems(ctx, limitRangesResource, a.Object.GetNamespace(), registry.ListOptions{ResourceVersion: a.Revision})
	if err != nil {
		return nil, fmt.Errorf("list limit ranges: %w", err)
	}
	if len(items) == 0 {
		return nil, nil
	}
	var errs []error
	for _, o := range items {
		lr := o.(*corev1.LimitRange)
		switch obj := a.Object.(type) {
		case *corev1.Pod:
			defaultPod(obj, lr)
			errs = append(errs, checkPod(obj, lr)...)
		case *corev1.PersistentVolumeClaim:
			errs = append(errs, checkClaim(obj, lr)...)
		}
	}
	if len(errs) > 0 {
		return nil, forbidden(a, utilerrors.NewAggregate(errs).Error())
	}
	return nil, revalidate(a)
}

// revalidate checks an object a plugin changed (a default request above
// the container's own limit is invalid, as upstream finds).
func revalidate(a *registry.Attributes) error {
	if errs := api.ValidateCreate(a.Resource, a.Object); len(errs) > 0 {
		return apierrors.NewInvalid(a.Resource.GroupKind(), a.Object.GetName(), errs)
	}
	return nil
}

// defaultPod gives every container the Container item's default requests
// and limits it does not set, and notes what it set on the pod.
func defaultPod(pod *corev1.Pod, lr *corev1.LimitRange) {
	var notes []string
	for _, it := range lr.Spec.Limits {
		if it.Type != corev1.LimitTypeContainer {
			continue
		}
		for i := range pod.Spec.InitContainers {
			notes = append(notes, defaultContainer(&pod.Spec.InitContainers[i], "init container", &it)...)
		}
		for i := range pod.Spec.Containers {
			notes = append(notes, defaultContainer(&pod.Spec.Containers[i], "container", &it)...)
		}
	}
	if len(notes) == 0 {
		return
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[limitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
}

// defaultContainer fills c's missing requests and limits from it.
func defaultContainer(c *corev1.Container, what string, it *corev1.LimitRangeItem) []string {
	var notes []string
	if set := fillMissing(&c.Resources.Requests, it.DefaultRequest); len(set) > 0 {
		notes = append(notes, fmt.Sprintf("%s request for %s %s", strings.Join(set, ", "), what, c.Name))
	}
	if set := fillMissing(&c.Resources.Limits, it.Default); len(set) > 0 {
		notes = append(notes, fmt.Sprintf("%s limit for %s %s", strings.Join(set, ", "), what, c.Name))
	}
	return notes
}

// fillMissing copies the entries of from that *to lacks and names them.
func fillMissing(to *corev1.ResourceList, from corev1.ResourceList) []string {
	var set []string
	for k, q := range from {
		if _, ok := (*to)[k]; ok {
			continue
		}
		if *to == nil {
			*to = corev1.ResourceList{}
		}
		(*to)[k] = q.DeepCopy()
		set = append(set, string(k))
	}
	sort.Strings(set)
	return set
}
