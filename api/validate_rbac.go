package api

import (
	"reflect"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The RBAC rules follow upstream's (pkg/apis/rbac/validation): names are
// path segments (system:controller:foo is fine), every policy rule names
// verbs, and either resources with their API groups or non-resource URLs
// (cluster-wide only), never both.

func validateRole(obj Object) field.ErrorList {
	return validatePolicyRules(obj.(*rbacv1.Role).Rules, true, field.NewPath("rules"))
}

func validateClusterRole(obj Object) field.ErrorList {
	role := obj.(*rbacv1.ClusterRole)
	errs := validatePolicyRules(role.Rules, false, field.NewPath("rules"))
	if agg := role.AggregationRule; agg != nil {
		p := field.NewPath("aggregationRule", "clusterRoleSelectors")
		if len(agg.ClusterRoleSelectors) == 0 {
			errs = append(errs, field.Required(p, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		opts := metav1validation.LabelSelectorValidationOptions{}
		for i := range agg.ClusterRoleSelectors {
			errs = append(errs, metav1validation.ValidateLabelSelector(&agg.ClusterRoleSelectors[i], opts, p.Index(i))...)
		}
	}
	return errs
}

func validatePolicyRules(rules []rbacv1.PolicyRule, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rules {
		rp := p.Index(i)
		if len(r.Verbs) == 0 {
			errs = append(errs, field.Required(rp.Child("verbs"), "verbs must contain at least one value"))
		}
		if len(r.NonResourceURLs) > 0 {
			if namespaced {
				errs = append(errs, field.Invalid(rp.Child("nonResourceURLs"), r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
				errs = append(errs, field.Invalid(rp.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(r.APIGroups) == 0 {
			errs = append(errs, field.Required(rp.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(r.Resources) == 0 {
			errs = append(errs, field.Required(rp.Child("resources"), "resource rules must supply at least one resource"))
		}
	}
	return errs
}

func validateRoleBinding(obj Object) field.ErrorList {
	b := obj.(*rbacv1.RoleBinding)
	errs := validateRoleRef(b.RoleRef, []string{"Role", "ClusterRole"})
	return append(errs, validateSubjects(b.Subjects, true)...)
}

func validateClusterRoleBinding(obj Object) field.ErrorList {
	b := obj.(*rbacv1.ClusterRoleBinding)
	errs := validateRoleRef(b.RoleRef, []string{"ClusterRole"})
	return append(errs, validateSubjects(b.Subjects, false)...)
}

func validateRoleRef(ref rbacv1.RoleRef, kinds []string) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("roleRef")
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(p.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	if !slices.Contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(p.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		for _, msg := range path.ValidatePathSegmentName(ref.Name, false) {
			errs = append(errs, field.Invalid(p.Child("name"), ref.Name, msg))
		}
	}
	return errs
}

func validateSubjects(subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, s := range subjects {
		errs = append(errs, validateSubject(s, namespaced, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

func validateSubject(s rbacv1.Subject, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range apivalidation.ValidateServiceAccountName(s.Name, false) {
				errs = append(errs, field.Invalid(p.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if s.APIGroup != rbacv1.GroupName {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind,
			[]string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return errs
}

// validateRoleRefUpdate refuses a change of roleRef: a binding's role is
// fixed for its life (delete and recreate the binding to change it).
func validateRoleRefUpdate(obj, old Object) field.ErrorList {
	ref := reflect.ValueOf(obj).Elem().FieldByName("RoleRef").Interface()
	oldRef := reflect.ValueOf(old).Elem().FieldByName("RoleRef").Interface()
	if ref != oldRef {
		return field.ErrorList{field.Invalid(field.NewPath("roleRef"), ref, "cannot change roleRef")}
	}
	return nil
}
