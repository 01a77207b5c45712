package api

import (
	"strings"

	arv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The policy rules follow upstream's for ValidatingAdmissionPolicy and its
// bindings: what to match, at least one validation or audit annotation,
// every expression present. The CEL in them is stored, not compiled.

func validatePolicy(obj Object) field.ErrorList {
	spec := obj.(*arv1.ValidatingAdmissionPolicy).Spec
	sp := field.NewPath("spec")
	var errs field.ErrorList
	if m := spec.MatchConstraints; m == nil {
		errs = append(errs, field.Required(sp.Child("matchConstraints"), ""))
	} else {
		errs = append(errs, validateMatchResources(m, sp.Child("matchConstraints"), true)...)
	}
	if pk := spec.ParamKind; pk != nil {
		if pk.APIVersion == "" {
			errs = append(errs, field.Required(sp.Child("paramKind", "apiVersion"), ""))
		}
		if pk.Kind == "" {
			errs = append(errs, field.Required(sp.Child("paramKind", "kind"), ""))
		}
	}
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		errs = append(errs, field.Required(sp.Child("validations"), "validations or auditAnnotations must contain at least one item"))
	}
	errs = append(errs, validatePolicyExpressions(&spec, sp)...)
	return append(errs, optionalEnum(sp.Child("failurePolicy"), (*string)(spec.FailurePolicy), "Fail", "Ignore")...)
}

// validatePolicyExpressions checks the policy's validations and audit
// annotations: each has its expression.
func validatePolicyExpressions(spec *arv1.ValidatingAdmissionPolicySpec, sp *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, v := range spec.Validations {
		vp := sp.Child("validations").Index(i)
		errs = append(errs, requiredExpression(v.Expression, vp.Child("expression"))...)
		if strings.ContainsAny(v.Message, "\n\r") {
			errs = append(errs, field.Invalid(vp.Child("message"), v.Message, "message must not contain line breaks"))
		}
		if v.Reason != nil {
			errs = append(errs, optionalEnum(vp.Child("reason"), (*string)(v.Reason), "Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge")...)
		}
	}
	for i, a := range spec.AuditAnnotations {
		errs = append(errs, requiredExpression(a.ValueExpression, sp.Child("auditAnnotations").Index(i).Child("valueExpression"))...)
	}
	return append(errs, validateNamedExpressions(spec, sp)...)
}

// validateNamedExpressions checks variables (C identifiers) and match
// conditions (named): each has its expression.
func validateNamedExpressions(spec *arv1.ValidatingAdmissionPolicySpec, sp *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, v := range spec.Variables {
		vp := sp.Child("variables").Index(i)
		if msgs := validation.IsCIdentifier(v.Name); len(msgs) > 0 {
			errs = append(errs, field.Invalid(vp.Child("name"), v.Name, strings.Join(msgs, "; ")))
		}
		errs = append(errs, requiredExpression(v.Expression, vp.Child("expression"))...)
	}
	for i, c := range spec.MatchConditions {
		cp := sp.Child("matchConditions").Index(i)
		if c.Name == "" {
			errs = append(errs, field.Required(cp.Child("name"), ""))
		}
		errs = append(errs, requiredExpression(c.Expression, cp.Child("expression"))...)
	}
	return errs
}

func requiredExpression(expr string, p *field.Path) field.ErrorList {
	if strings.TrimSpace(expr) == "" {
		return field.ErrorList{field.Required(p, "expression is not specified")}
	}
	return nil
}

func validateMatchResources(m *arv1.MatchResources, p *field.Path, needRules bool) field.ErrorList {
	var errs field.ErrorList
	if needRules && len(m.ResourceRules) == 0 {
		errs = append(errs, field.Required(p.Child("resourceRules"), ""))
	}
	for i, r := range m.ResourceRules {
		rp := p.Child("resourceRules").Index(i)
		errs = append(errs, validateRuleWithOperations(r.RuleWithOperations, rp)...)
	}
	for i, r := range m.ExcludeResourceRules {
		rp := p.Child("excludeResourceRules").Index(i)
		errs = append(errs, validateRuleWithOperations(r.RuleWithOperations, rp)...)
	}
	return append(errs, optionalEnum(p.Child("matchPolicy"), (*string)(m.MatchPolicy), "Equivalent", "Exact")...)
}

func validatePolicyBinding(obj Object) field.ErrorList {
	spec := obj.(*arv1.ValidatingAdmissionPolicyBinding).Spec
	sp := field.NewPath("spec")
	var errs field.ErrorList
	if spec.PolicyName == "" {
		errs = append(errs, field.Required(sp.Child("policyName"), ""))
	}
	ap := sp.Child("validationActions")
	if len(spec.ValidationActions) == 0 {
		errs = append(errs, field.Required(ap, "at least one validation action is required"))
	}
	seen := sets.New[arv1.ValidationAction]()
	for i, a := range spec.ValidationActions {
		if seen.Has(a) {
			errs = append(errs, field.Duplicate(ap.Index(i), a))
		}
		seen.Insert(a)
		errs = append(errs, optionalEnum(ap.Index(i), (*string)(&a), "Deny", "Warn", "Audit")...)
	}
	if seen.Has(arv1.Deny) && seen.Has(arv1.Warn) {
		errs = append(errs, field.Invalid(ap, spec.ValidationActions, "must not contain both Deny and Warn"))
	}
	if m := spec.MatchResources; m != nil {
		errs = append(errs, validateMatchResources(m, sp.Child("matchResources"), false)...)
	}
	return append(errs, validateParamRef(spec.ParamRef, sp.Child("paramRef"))...)
}

func validateParamRef(ref *arv1.ParamRef, p *field.Path) field.ErrorList {
	if ref == nil {
		return nil
	}
	var errs field.ErrorList
	if (ref.Name == "") == (ref.Selector == nil) {
		errs = append(errs, field.Forbidden(p, "one of name or selector must be specified, not both"))
	}
	if ref.ParameterNotFoundAction == nil {
		errs = append(errs, field.Required(p.Child("parameterNotFoundAction"), ""))
	} else {
		errs = append(errs, optionalEnum(p.Child("parameterNotFoundAction"), (*string)(ref.ParameterNotFoundAction), "Allow", "Deny")...)
	}
	return errs
}
