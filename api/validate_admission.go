package api

import (
	"net/url"
	"strings"

	arv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The webhook rules follow upstream's (pkg/apis/admissionregistration/
// validation): unique fully qualified names, complete rules, exactly one
// of url or service, side effects None or NoneOnDryRun, a review version
// bramble could send, a timeout of 1 to 30 seconds.

// webhook is what Validating and Mutating webhooks share.
type webhook struct {
	name                            string
	rules                           []arv1.RuleWithOperations
	clientConfig                    arv1.WebhookClientConfig
	failurePolicy, matchPolicy      *string
	sideEffects                     *arv1.SideEffectClass
	timeout                         *int32
	reviewVersions                  []string
	namespaceSelector, objectSelect *metav1.LabelSelector
}

func validateWebhookConfiguration(obj Object) field.ErrorList {
	var hooks []webhook
	switch o := obj.(type) {
	case *arv1.ValidatingWebhookConfiguration:
		for _, w := range o.Webhooks {
			hooks = append(hooks, webhook{w.Name, w.Rules, w.ClientConfig, (*string)(w.FailurePolicy), (*string)(w.MatchPolicy),
				w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.NamespaceSelector, w.ObjectSelector})
		}
	case *arv1.MutatingWebhookConfiguration:
		for _, w := range o.Webhooks {
			hooks = append(hooks, webhook{w.Name, w.Rules, w.ClientConfig, (*string)(w.FailurePolicy), (*string)(w.MatchPolicy),
				w.SideEffects, w.TimeoutSeconds, w.AdmissionReviewVersions, w.NamespaceSelector, w.ObjectSelector})
		}
	}
	var errs field.ErrorList
	names := sets.New[string]()
	for i, w := range hooks {
		p := field.NewPath("webhooks").Index(i)
		if names.Has(w.name) {
			errs = append(errs, field.Duplicate(p.Child("name"), w.name))
		}
		names.Insert(w.name)
		errs = append(errs, validateWebhook(w, p)...)
	}
	return errs
}

func validateWebhook(w webhook, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if w.name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else if msgs := validation.IsFullyQualifiedName(p.Child("name"), w.name); len(msgs) > 0 {
		errs = append(errs, msgs...)
	}
	for j, r := range w.rules {
		errs = append(errs, validateRuleWithOperations(r, p.Child("rules").Index(j))...)
	}
	errs = append(errs, optionalEnum(p.Child("failurePolicy"), w.failurePolicy, "Fail", "Ignore")...)
	errs = append(errs, optionalEnum(p.Child("matchPolicy"), w.matchPolicy, "Equivalent", "Exact")...)
	if w.sideEffects == nil {
		errs = append(errs, field.Required(p.Child("sideEffects"), "must specify one of None, NoneOnDryRun"))
	} else {
		errs = append(errs, optionalEnum(p.Child("sideEffects"), (*string)(w.sideEffects), "None", "NoneOnDryRun")...)
	}
	if t := w.timeout; t != nil && (*t < 1 || *t > 30) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	errs = append(errs, validateReviewVersions(w.reviewVersions, p.Child("admissionReviewVersions"))...)
	errs = append(errs, validateClientConfig(w.clientConfig, p.Child("clientConfig"))...)
	errs = append(errs, validateOptionalSelector(w.namespaceSelector, p.Child("namespaceSelector"))...)
	return append(errs, validateOptionalSelector(w.objectSelect, p.Child("objectSelector"))...)
}

func validateOptionalSelector(sel *metav1.LabelSelector, p *field.Path) field.ErrorList {
	if sel == nil {
		return nil
	}
	return metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, p)
}

func validateRuleWithOperations(r arv1.RuleWithOperations, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(p.Child("operations"), ""))
	}
	for k, op := range r.Operations {
		errs = append(errs, optionalEnum(p.Child("operations").Index(k), (*string)(&op), "*", "CREATE", "UPDATE", "DELETE", "CONNECT")...)
	}
	return append(errs, validateRule(r.Rule, p)...)
}

func validateRule(r arv1.Rule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, f := range []struct {
		name string
		list []string
	}{{"apiGroups", r.APIGroups}, {"apiVersions", r.APIVersions}, {"resources", r.Resources}} {
		if len(f.list) == 0 {
			errs = append(errs, field.Required(p.Child(f.name), ""))
		}
	}
	for k, res := range r.Resources {
		if res == "" {
			errs = append(errs, field.Required(p.Child("resources").Index(k), ""))
		}
	}
	return append(errs, optionalEnum(p.Child("scope"), (*string)(r.Scope), "*", "Cluster", "Namespaced")...)
}

func validateReviewVersions(versions []string, p *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must specify one of v1, v1beta1")}
	}
	seen := sets.New[string]()
	var errs field.ErrorList
	for i, v := range versions {
		if seen.Has(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
		}
		seen.Insert(v)
	}
	if !seen.Has("v1") && !seen.Has("v1beta1") {
		errs = append(errs, field.Invalid(p, versions, "must include at least one of v1, v1beta1"))
	}
	return errs
}

func validateClientConfig(cc arv1.WebhookClientConfig, p *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(p, "exactly one of url or service is required")}
	case cc.URL != nil:
		u, err := url.Parse(*cc.URL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return field.ErrorList{field.Invalid(p.Child("url"), *cc.URL, "must be an https URL with a host and no user, query or fragment")}
		}
		return nil
	}
	s, sp := cc.Service, p.Child("service")
	var errs field.ErrorList
	if s.Namespace == "" {
		errs = append(errs, field.Required(sp.Child("namespace"), "service namespace is required"))
	}
	if s.Name == "" {
		errs = append(errs, field.Required(sp.Child("name"), "service name is required"))
	}
	if s.Path != nil && !strings.HasPrefix(*s.Path, "/") {
		errs = append(errs, field.Invalid(sp.Child("path"), *s.Path, "must start with a '/'"))
	}
	if s.Port != nil && (*s.Port < 1 || *s.Port > 65535) {
		errs = append(errs, field.Invalid(sp.Child("port"), *s.Port, "port is not valid: must be between 1 and 65535, inclusive"))
	}
	return errs
}

// optionalEnum checks an optional enum field (nil passes).
func optionalEnum(p *field.Path, v *string, allowed ...string) field.ErrorList {
	if v == nil || sets.New(allowed...).Has(*v) {
		return nil
	}
	return field.ErrorList{field.NotSupported(p, *v, allowed)}
}
