package api

import (
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateNodeAffinity checks spec.affinity.nodeAffinity as the real
// apiserver does: required affinity has at least one term, preferred terms
// weigh 1-100, and every requirement has the values its operator needs.
// api.NodeMatcher would match nothing with a malformed term; refusing it
// here tells the user why.
func validateNodeAffinity(a *corev1.Affinity, p *field.Path) field.ErrorList {
	if a == nil || a.NodeAffinity == nil {
		return nil
	}
	na, p := a.NodeAffinity, p.Child("nodeAffinity")
	var errs field.ErrorList
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		tp := p.Child("requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
		if len(req.NodeSelectorTerms) == 0 {
			errs = append(errs, field.Required(tp, "must have at least one node selector term"))
		}
		for i := range req.NodeSelectorTerms {
			errs = append(errs, validateNodeSelectorTerm(&req.NodeSelectorTerms[i], tp.Index(i))...)
		}
	}
	for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		if t.Weight <= 0 || t.Weight > 100 {
			errs = append(errs, field.Invalid(tp.Child("weight"), t.Weight, "must be in the range 1-100"))
		}
		errs = append(errs, validateNodeSelectorTerm(&t.Preference, tp.Child("preference"))...)
	}
	return errs
}

func validateNodeSelectorTerm(t *corev1.NodeSelectorTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range t.MatchExpressions {
		errs = append(errs, validateNodeSelectorRequirement(&t.MatchExpressions[i], p.Child("matchExpressions").Index(i))...)
	}
	for i := range t.MatchFields {
		errs = append(errs, validateNodeFieldRequirement(&t.MatchFields[i], p.Child("matchFields").Index(i))...)
	}
	return errs
}

func validateNodeSelectorRequirement(r *corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			errs = append(errs, field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
	}
	return append(errs, metav1validation.ValidateLabelName(r.Key, p.Child("key"))...)
}

// validateNodeFieldRequirement checks a matchFields requirement: only
// metadata.name, only In or NotIn, exactly one node name.
func validateNodeFieldRequirement(r *corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
	}
	if r.Key != metav1.ObjectNameField {
		return append(errs, field.Invalid(p.Child("key"), r.Key, "not a valid field selector key"))
	}
	for i, v := range r.Values {
		errs = append(errs, invalidEach(p.Child("values").Index(i), v, apivalidation.NameIsDNSSubdomain(v, false))...)
	}
	return errs
}
