package api

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// defaultLimitRange fills a Container item's defaults as upstream does: a
// missing default limit is the max, a missing default request is the
// default limit, else the min.
func defaultLimitRange(obj Object) {
	lr := obj.(*corev1.LimitRange)
	for i := range lr.Spec.Limits {
		it := &lr.Spec.Limits[i]
		if it.Type != corev1.LimitTypeContainer {
			continue
		}
		it.Default = fillMissing(it.Default, it.Max)
		it.DefaultRequest = fillMissing(it.DefaultRequest, it.Default)
		it.DefaultRequest = fillMissing(it.DefaultRequest, it.Min)
	}
}

// fillMissing copies into to the entries of from it lacks; nil stays nil
// when there is nothing to copy.
func fillMissing(to, from corev1.ResourceList) corev1.ResourceList {
	for k, v := range from {
		if _, ok := to[k]; !ok {
			if to == nil {
				to = corev1.ResourceList{}
			}
			to[k] = v.DeepCopy()
		}
	}
	return to
}

func validateLimitRange(obj Object) field.ErrorList {
	lr := obj.(*corev1.LimitRange)
	var errs field.ErrorList
	seen := map[corev1.LimitType]bool{}
	for i := range lr.Spec.Limits {
		it := &lr.Spec.Limits[i]
		p := specPath.Child("limits").Index(i)
		if seen[it.Type] {
			errs = append(errs, field.Duplicate(p.Child("type"), it.Type))
		}
		seen[it.Type] = true
		errs = append(errs, validateLimitRangeItem(it, p)...)
	}
	return errs
}

func validateLimitRangeItem(it *corev1.LimitRangeItem, p *field.Path) field.ErrorList {
	errs := invalidEach(p.Child("type"), it.Type, validation.IsQualifiedName(string(it.Type)))
	for _, l := range []struct {
		name string
		list corev1.ResourceList
	}{{"max", it.Max}, {"min", it.Min}, {"default", it.Default}, {"defaultRequest", it.DefaultRequest}, {"maxLimitRequestRatio", it.MaxLimitRequestRatio}} {
		for k, q := range l.list {
			kp := p.Child(l.name).Key(string(k))
			errs = append(errs, invalidEach(kp, string(k), validation.IsQualifiedName(string(k)))...)
			errs = append(errs, validateQuantity(q, kp)...)
		}
	}
	switch it.Type {
	case corev1.LimitTypePod:
		if len(it.Default) > 0 {
			errs = append(errs, field.Forbidden(p.Child("default"), "may not be specified when `type` is 'Pod'"))
		}
		if len(it.DefaultRequest) > 0 {
			errs = append(errs, field.Forbidden(p.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
		}
	case corev1.LimitTypePersistentVolumeClaim:
		_, minOK := it.Min[corev1.ResourceStorage]
		_, maxOK := it.Max[corev1.ResourceStorage]
		if !minOK && !maxOK {
			errs = append(errs, field.Required(p.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
		}
	}
	return append(errs, validateLimitOrder(it, p)...)
}

// validateLimitOrder checks min <= defaultRequest <= default <= max and
// the ratio against max/min, with upstream's messages.
func validateLimitOrder(it *corev1.LimitRangeItem, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	le := func(a, b corev1.ResourceList, k corev1.ResourceName, at *field.Path, format string) {
		x, okA := a[k]
		y, okB := b[k]
		if okA && okB && x.Cmp(y) > 0 {
			errs = append(errs, field.Invalid(at.Key(string(k)), x.String(), fmt.Sprintf(format, x.String(), y.String())))
		}
	}
	for _, k := range limitKeys(it) {
		le(it.Min, it.Max, k, p.Child("min"), "min value %s is greater than max value %s")
		le(it.Min, it.DefaultRequest, k, p.Child("defaultRequest"), "min value %s is greater than default request value %s")
		le(it.DefaultRequest, it.Max, k, p.Child("defaultRequest"), "default request value %s is greater than max value %s")
		le(it.DefaultRequest, it.Default, k, p.Child("defaultRequest"), "default request value %s is greater than default limit value %s")
		le(it.Min, it.Default, k, p.Child("default"), "min value %s is greater than default value %s")
		le(it.Default, it.Max, k, p.Child("default"), "default value %s is greater than max value %s")
		errs = append(errs, validateRatio(it, k, p.Child("maxLimitRequestRatio").Key(string(k)))...)
	}
	return errs
}

func validateRatio(it *corev1.LimitRangeItem, k corev1.ResourceName, p *field.Path) field.ErrorList {
	ratio, ok := it.MaxLimitRequestRatio[k]
	if !ok {
		return nil
	}
	if ratio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
		return field.ErrorList{field.Invalid(p, ratio.String(), fmt.Sprintf("ratio %s is less than 1", ratio.String()))}
	}
	minQ, okMin := it.Min[k]
	maxQ, okMax := it.Max[k]
	if okMin && okMax && minQ.MilliValue() > 0 {
		most := float64(maxQ.MilliValue()) / float64(minQ.MilliValue())
		if float64(ratio.MilliValue())/1000 > most {
			return field.ErrorList{field.Invalid(p, ratio.String(), fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), most))}
		}
	}
	return nil
}

// limitKeys lists every resource name an item mentions.
func limitKeys(it *corev1.LimitRangeItem) []corev1.ResourceName {
	seen := map[corev1.ResourceName]bool{}
	var out []corev1.ResourceName
	for _, l := range []corev1.ResourceList{it.Max, it.Min, it.Default, it.DefaultRequest, it.MaxLimitRequestRatio} {
		for k := range l {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
