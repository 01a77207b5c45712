package api

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// standardQuotaNames are the quota resource names without a "/" that a
// ResourceQuota may limit (hugepages-* and requests.hugepages-* aside).
var standardQuotaNames = sets.New("pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
	"configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
	"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.storage",
	"requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage")

// integerQuotaNames are counted in whole objects.
var integerQuotaNames = sets.New("pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
	"configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers")

// quotaScopes are the scopes a ResourceQuota may name.
var quotaScopes = sets.New(corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
	corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort,
	corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeCrossNamespacePodAffinity)

func validateResourceQuota(obj Object) field.ErrorList {
	q := obj.(*corev1.ResourceQuota)
	errs := validateQuotaList(q.Spec.Hard, specPath.Child("hard"))
	errs = append(errs, validateQuotaScopes(q.Spec.Scopes, specPath.Child("scopes"))...)
	if q.Spec.ScopeSelector != nil {
		errs = append(errs, validateScopeSelector(q.Spec.ScopeSelector, specPath.Child("scopeSelector"))...)
	}
	return append(errs, validateResourceQuotaStatus(obj)...)
}

func validateResourceQuotaStatus(obj Object) field.ErrorList {
	q := obj.(*corev1.ResourceQuota)
	p := field.NewPath("status")
	return append(validateQuotaList(q.Status.Hard, p.Child("hard")), validateQuotaList(q.Status.Used, p.Child("used"))...)
}

// validateQuotaList checks a list of quota resources: known names,
// non-negative amounts, whole numbers for object counts.
func validateQuotaList(l corev1.ResourceList, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for name, q := range l {
		kp := p.Key(string(name))
		errs = append(errs, validateQuotaName(string(name), kp)...)
		errs = append(errs, validateQuantity(q, kp)...)
		if isIntegerQuotaName(string(name)) && q.MilliValue()%1000 != 0 {
			errs = append(errs, field.Invalid(kp, q.String(), "must be an integer"))
		}
	}
	return errs
}

func validateQuotaName(name string, p *field.Path) field.ErrorList {
	errs := invalidEach(p, name, validation.IsQualifiedName(name))
	if len(errs) == 0 && !strings.Contains(name, "/") && !standardQuotaNames.Has(name) &&
		!strings.HasPrefix(name, "hugepages-") && !strings.HasPrefix(name, "requests.hugepages-") {
		errs = append(errs, field.Invalid(p, name, "must be a standard resource for quota"))
	}
	return errs
}

func isIntegerQuotaName(name string) bool {
	return integerQuotaNames.Has(name) || strings.HasPrefix(name, "count/")
}

func validateQuotaScopes(scopes []corev1.ResourceQuotaScope, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[corev1.ResourceQuotaScope]()
	for i, s := range scopes {
		if !quotaScopes.Has(s) {
			errs = append(errs, field.Invalid(p.Index(i), s, "unsupported scope"))
		}
		seen.Insert(s)
	}
	if seen.HasAll(corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating) ||
		seen.HasAll(corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort) {
		errs = append(errs, field.Invalid(p, scopes, "conflicting scopes"))
	}
	return errs
}

func validateScopeSelector(sel *corev1.ScopeSelector, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, req := range sel.MatchExpressions {
		rp := p.Child("matchExpressions").Index(i)
		if !quotaScopes.Has(req.ScopeName) {
			errs = append(errs, field.Invalid(rp.Child("scopeName"), req.ScopeName, "unsupported scope"))
		}
		switch req.Operator {
		case corev1.ScopeSelectorOpIn, corev1.ScopeSelectorOpNotIn:
			if len(req.Values) == 0 {
				errs = append(errs, field.Required(rp.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"))
			}
		case corev1.ScopeSelectorOpExists, corev1.ScopeSelectorOpDoesNotExist:
			if len(req.Values) != 0 {
				errs = append(errs, field.Invalid(rp.Child("values"), req.Values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"))
			}
		default:
			errs = append(errs, field.Invalid(rp.Child("operator"), req.Operator, "not a valid selector operator"))
		}
	}
	return errs
}
