package api

import (
	arv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Webhooks and policies are stored only: bramble's admission runs its own
// built-in rules and admitters.
const (
	WebhooksStoredOnly = "admission webhooks are not called"
	PoliciesStoredOnly = "validating admission policies are not evaluated (CEL expressions are stored unchecked)"
)

func init() {
	addServedGroup(arv1.AddToScheme, arv1.SchemeGroupVersion)
	ar := func(name, kind, storedOnly string, obj func() Object, list func() runtime.Object) *Resource {
		return &Resource{Group: arv1.GroupName, Version: "v1", Name: name, Singular: name[:len(name)-1], Kind: kind,
			Categories: []string{"api-extensions"}, StoredOnly: storedOnly, newObject: obj, newList: list}
	}
	register(ar("validatingwebhookconfigurations", "ValidatingWebhookConfiguration", WebhooksStoredOnly,
		func() Object { return &arv1.ValidatingWebhookConfiguration{} },
		func() runtime.Object { return &arv1.ValidatingWebhookConfigurationList{} }),
		Rules{Default: defaultWebhooks, Validate: validateWebhookConfiguration})
	register(ar("mutatingwebhookconfigurations", "MutatingWebhookConfiguration", WebhooksStoredOnly,
		func() Object { return &arv1.MutatingWebhookConfiguration{} },
		func() runtime.Object { return &arv1.MutatingWebhookConfigurationList{} }),
		Rules{Default: defaultWebhooks, Validate: validateWebhookConfiguration})
	policy := ar("validatingadmissionpolicies", "ValidatingAdmissionPolicy", PoliciesStoredOnly,
		func() Object { return &arv1.ValidatingAdmissionPolicy{} },
		func() runtime.Object { return &arv1.ValidatingAdmissionPolicyList{} })
	policy.Subresources, policy.Generation, policy.Singular = []string{"status"}, true, "validatingadmissionpolicy"
	register(policy, Rules{Default: defaultPolicy, Validate: validatePolicy})
	register(ar("validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", PoliciesStoredOnly,
		func() Object { return &arv1.ValidatingAdmissionPolicyBinding{} },
		func() runtime.Object { return &arv1.ValidatingAdmissionPolicyBindingList{} }),
		Rules{Validate: validatePolicyBinding})
}

// defaultWebhooks sets upstream's v1 defaults on every webhook of a
// Validating- or MutatingWebhookConfiguration.
func defaultWebhooks(obj Object) {
	switch o := obj.(type) {
	case *arv1.ValidatingWebhookConfiguration:
		for i := range o.Webhooks {
			w := &o.Webhooks[i]
			defaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, &w.ClientConfig)
		}
	case *arv1.MutatingWebhookConfiguration:
		for i := range o.Webhooks {
			w := &o.Webhooks[i]
			defaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, &w.ClientConfig)
			setDefault(&w.ReinvocationPolicy, arv1.NeverReinvocationPolicy)
		}
	}
}

func defaultWebhook(fp **arv1.FailurePolicyType, mp **arv1.MatchPolicyType, ns, objSel **metav1.LabelSelector,
	timeout **int32, rules []arv1.RuleWithOperations, cc *arv1.WebhookClientConfig) {
	setDefault(fp, arv1.Fail)
	setDefault(mp, arv1.Equivalent)
	setDefault(ns, metav1.LabelSelector{})
	setDefault(objSel, metav1.LabelSelector{})
	setDefault(timeout, int32(10))
	for i := range rules {
		setDefault(&rules[i].Scope, arv1.AllScopes)
	}
	if cc.Service != nil {
		setDefault(&cc.Service.Port, int32(443))
	}
}

func defaultPolicy(obj Object) {
	spec := &obj.(*arv1.ValidatingAdmissionPolicy).Spec
	setDefault(&spec.FailurePolicy, arv1.Fail)
	if m := spec.MatchConstraints; m != nil {
		setDefault(&m.MatchPolicy, arv1.Equivalent)
		setDefault(&m.NamespaceSelector, metav1.LabelSelector{})
		setDefault(&m.ObjectSelector, metav1.LabelSelector{})
		for i := range m.ResourceRules {
			setDefault(&m.ResourceRules[i].Scope, arv1.AllScopes)
		}
	}
}

// setDefault points *p at a copy of v when it is nil.
func setDefault[T any](p **T, v T) {
	if *p == nil {
		*p = &v
	}
}
