package admission

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/api/quota"
)

// checkPod holds each container to the Container items and the pod's
// total to the Pod items of lr.
func checkPod(pod *corev1.Pod, lr *corev1.LimitRange) []error {
	var errs []error
	for i := range lr.Spec.Limits {
		it := &lr.Spec.Limits[i]
		switch it.Type {
		case corev1.LimitTypeContainer:
			all := append(append([]corev1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...)
			for _, c := range all {
				errs = append(errs, checkItem(it, c.Resources.Requests, c.Resources.Limits)...)
			}
		case corev1.LimitTypePod:
			requests, limits := quota.PodCompute(&pod.Spec)
			errs = append(errs, checkItem(it, requests, limits)...)
		}
	}
	return errs
}

// checkClaim holds a claim's storage request to lr's claim items.
func checkClaim(pvc *corev1.PersistentVolumeClaim, lr *corev1.LimitRange) []error {
	var errs []error
	requests := pvc.Spec.Resources.Requests
	for _, it := range lr.Spec.Limits {
		if it.Type != corev1.LimitTypePersistentVolumeClaim {
			continue
		}
		for _, k := range sortedNames(it.Min) {
			errs = append(errs, minConstraint(string(it.Type), k, it.Min[k], requests, nil))
		}
		for _, k := range sortedNames(it.Max) {
			errs = append(errs, maxRequestConstraint(string(it.Type), k, it.Max[k], requests))
		}
	}
	return dropNil(errs)
}

// checkItem applies one item's min, max and ratio to requests and limits.
func checkItem(it *corev1.LimitRangeItem, requests, limits corev1.ResourceList) []error {
	kind := string(it.Type)
	var errs []error
	for _, k := range sortedNames(it.Min) {
		errs = append(errs, minConstraint(kind, k, it.Min[k], requests, limits))
	}
	for _, k := range sortedNames(it.Max) {
		errs = append(errs, maxConstraint(kind, k, it.Max[k], requests, limits))
	}
	for _, k := range sortedNames(it.MaxLimitRequestRatio) {
		errs = append(errs, ratioConstraint(kind, k, it.MaxLimitRequestRatio[k], requests, limits))
	}
	return dropNil(errs)
}

func minConstraint(kind string, k corev1.ResourceName, least resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[k]
	lim, hasLim := limits[k]
	switch {
	case !hasReq:
		return fmt.Errorf("minimum %s usage per %s is %s.  No request is specified", k, kind, least.String())
	case req.Cmp(least) < 0:
		return fmt.Errorf("minimum %s usage per %s is %s, but request is %s", k, kind, least.String(), req.String())
	case hasLim && lim.Cmp(least) < 0:
		return fmt.Errorf("minimum %s usage per %s is %s, but limit is %s", k, kind, least.String(), lim.String())
	}
	return nil
}

func maxConstraint(kind string, k corev1.ResourceName, most resource.Quantity, requests, limits corev1.ResourceList) error {
	req, hasReq := requests[k]
	lim, hasLim := limits[k]
	switch {
	case !hasLim:
		return fmt.Errorf("maximum %s usage per %s is %s.  No limit is specified", k, kind, most.String())
	case lim.Cmp(most) > 0:
		return fmt.Errorf("maximum %s usage per %s is %s, but limit is %s", k, kind, most.String(), lim.String())
	case hasReq && req.Cmp(most) > 0:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", k, kind, most.String(), req.String())
	}
	return nil
}

func maxRequestConstraint(kind string, k corev1.ResourceName, most resource.Quantity, requests corev1.ResourceList) error {
	req, hasReq := requests[k]
	switch {
	case !hasReq:
		return fmt.Errorf("maximum %s usage per %s is %s.  No request is specified", k, kind, most.String())
	case req.Cmp(most) > 0:
		return fmt.Errorf("maximum %s usage per %s is %s, but request is %s", k, kind, most.String(), req.String())
	}
	return nil
}

func ratioConstraint(kind string, k corev1.ResourceName, ratio resource.Quantity, requests, limits corev1.ResourceList) error {
	req, lim := requests[k], limits[k]
	switch {
	case req.IsZero():
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", k, kind, ratio.String())
	case lim.IsZero():
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", k, kind, ratio.String())
	}
	got := lim.AsApproximateFloat64() / req.AsApproximateFloat64()
	if got > ratio.AsApproximateFloat64() {
		return fmt.Errorf("%s max limit to request ratio per %s is %s, but provided ratio is %f", k, kind, ratio.String(), got)
	}
	return nil
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(l))
	for k := range l {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func dropNil(errs []error) []error {
	out := errs[:0]
	for _, e := range errs {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}
