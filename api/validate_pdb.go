package api

import (
	policyv1 "k8s.io/api/policy/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validatePDB(obj Object) field.ErrorList {
	pdb := obj.(*policyv1.PodDisruptionBudget)
	s := &pdb.Spec
	var errs field.ErrorList
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(specPath, s, "minAvailable and maxUnavailable cannot be both set"))
	}
	errs = append(errs, validatePercentOrCount(s.MinAvailable, specPath.Child("minAvailable"))...)
	errs = append(errs, validatePercentOrCount(s.MaxUnavailable, specPath.Child("maxUnavailable"))...)
	errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector,
		metav1validation.LabelSelectorValidationOptions{}, specPath.Child("selector"))...)
	if p := s.UnhealthyPodEvictionPolicy; p != nil && *p != policyv1.IfHealthyBudget && *p != policyv1.AlwaysAllow {
		errs = append(errs, field.NotSupported(specPath.Child("unhealthyPodEvictionPolicy"), *p,
			[]string{string(policyv1.IfHealthyBudget), string(policyv1.AlwaysAllow)}))
	}
	return append(errs, validatePDBStatus(obj)...)
}

// validatePercentOrCount checks a count or a percentage of at most 100%.
func validatePercentOrCount(v *intstr.IntOrString, p *field.Path) field.ErrorList {
	errs := validateIntOrPercent(v, p)
	if len(errs) == 0 && v != nil && v.Type == intstr.String {
		if n, err := intstr.GetScaledValueFromIntOrPercent(v, 100, false); err == nil && n > 100 {
			errs = append(errs, field.Invalid(p, v.StrVal, "must not be greater than 100%"))
		}
	}
	return errs
}

func validatePDBStatus(obj Object) field.ErrorList {
	st := &obj.(*policyv1.PodDisruptionBudget).Status
	p := field.NewPath("status")
	var errs field.ErrorList
	for name, v := range map[string]int32{"disruptionsAllowed": st.DisruptionsAllowed, "currentHealthy": st.CurrentHealthy,
		"desiredHealthy": st.DesiredHealthy, "expectedPods": st.ExpectedPods} {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(v), p.Child(name))...)
	}
	return errs
}
