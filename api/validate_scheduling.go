package api

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// HighestUserPriority is the highest value a PriorityClass not named
// system-* may have; the system classes sit above it.
const HighestUserPriority = 1000000000

// SystemPriorityClasses are the classes every cluster has; they may not
// be changed or deleted.
var SystemPriorityClasses = map[string]int32{
	"system-node-critical":    2000001000,
	"system-cluster-critical": 2000000000,
}

func defaultPriorityClass(obj Object) {
	pc := obj.(*schedulingv1.PriorityClass)
	if pc.PreemptionPolicy == nil {
		p := corev1.PreemptLowerPriority
		pc.PreemptionPolicy = &p
	}
}

func validatePriorityClass(obj Object) field.ErrorList {
	pc := obj.(*schedulingv1.PriorityClass)
	var errs field.ErrorList
	if strings.HasPrefix(pc.Name, "system-") {
		if msg := knownSystemClass(pc); msg != "" {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
				"priority class names with 'system-' prefix are reserved for system use only. error: "+msg))
		}
	} else if pc.Value > HighestUserPriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"),
			fmt.Sprintf("maximum allowed value of a user defined priority is %v", HighestUserPriority)))
	}
	if pc.PreemptionPolicy != nil {
		errs = append(errs, validatePreemptionPolicy(*pc.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	}
	return errs
}

// knownSystemClass says what is wrong with a system-* class ("" if nothing).
func knownSystemClass(pc *schedulingv1.PriorityClass) string {
	value, ok := SystemPriorityClasses[pc.Name]
	switch {
	case !ok:
		return fmt.Sprintf("%v is not a known system priority class", pc.Name)
	case pc.Value != value:
		return fmt.Sprintf("value of %v PriorityClass must be %v", pc.Name, value)
	case pc.GlobalDefault:
		return fmt.Sprintf("globalDefault of %v PriorityClass must be false", pc.Name)
	}
	return ""
}

func validatePreemptionPolicy(p corev1.PreemptionPolicy, at *field.Path) field.ErrorList {
	if p != corev1.PreemptLowerPriority && p != corev1.PreemptNever {
		return field.ErrorList{field.NotSupported(at, p, []string{string(corev1.PreemptLowerPriority), string(corev1.PreemptNever)})}
	}
	return nil
}

func validatePriorityClassUpdate(obj, old Object) field.ErrorList {
	pc, was := obj.(*schedulingv1.PriorityClass), old.(*schedulingv1.PriorityClass)
	var errs field.ErrorList
	if pc.Value != was.Value {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	return append(errs, immutable(pc.PreemptionPolicy, was.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
}

func validateRuntimeClass(obj Object) field.ErrorList {
	rc := obj.(*nodev1.RuntimeClass)
	hp := field.NewPath("handler")
	var errs field.ErrorList
	if rc.Handler == "" {
		errs = append(errs, field.Required(hp, ""))
	} else {
		errs = append(errs, invalidEach(hp, rc.Handler, validation.IsDNS1123Label(rc.Handler))...)
	}
	if rc.Overhead != nil {
		op := field.NewPath("overhead", "podFixed")
		for k, q := range rc.Overhead.PodFixed {
			errs = append(errs, invalidEach(op.Key(string(k)), string(k), validation.IsQualifiedName(string(k)))...)
			errs = append(errs, validateQuantity(q, op.Key(string(k)))...)
		}
	}
	if rc.Scheduling != nil {
		sp := field.NewPath("scheduling", "nodeSelector")
		for k, v := range rc.Scheduling.NodeSelector {
			errs = append(errs, invalidEach(sp.Key(k), k, validation.IsQualifiedName(k))...)
			errs = append(errs, invalidEach(sp.Key(k), v, validation.IsValidLabelValue(v))...)
		}
	}
	return errs
}

func validateRuntimeClassUpdate(obj, old Object) field.ErrorList {
	return apivalidation.ValidateImmutableField(obj.(*nodev1.RuntimeClass).Handler, old.(*nodev1.RuntimeClass).Handler, field.NewPath("handler"))
}

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
