package quota

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// Matches reports whether obj is counted by q: every object when q has no
// scopes; otherwise only pods, and only those in every scope (spec.scopes
// and spec.scopeSelector together).
func Matches(q *corev1.ResourceQuota, obj api.Object) bool {
	sel := scopeRequirements(q)
	if len(sel) == 0 {
		return true
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return false
	}
	for _, req := range sel {
		if !podInScope(pod, req) {
			return false
		}
	}
	return true
}

// scopeRequirements turns spec.scopes into Exists requirements beside
// spec.scopeSelector's.
func scopeRequirements(q *corev1.ResourceQuota) []corev1.ScopedResourceSelectorRequirement {
	var out []corev1.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		out = append(out, corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists})
	}
	if q.Spec.ScopeSelector != nil {
		out = append(out, q.Spec.ScopeSelector.MatchExpressions...)
	}
	return out
}

func podInScope(p *corev1.Pod, req corev1.ScopedResourceSelectorRequirement) bool {
	switch req.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return p.Spec.ActiveDeadlineSeconds != nil && *p.Spec.ActiveDeadlineSeconds >= 0
	case corev1.ResourceQuotaScopeNotTerminating:
		return p.Spec.ActiveDeadlineSeconds == nil || *p.Spec.ActiveDeadlineSeconds < 0
	case corev1.ResourceQuotaScopeBestEffort:
		return api.PodQOSClass(&p.Spec) == corev1.PodQOSBestEffort
	case corev1.ResourceQuotaScopeNotBestEffort:
		return api.PodQOSClass(&p.Spec) != corev1.PodQOSBestEffort
	case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return crossNamespaceAffinity(p)
	case corev1.ResourceQuotaScopePriorityClass:
		return priorityInScope(p.Spec.PriorityClassName, req)
	}
	return false
}

func priorityInScope(name string, req corev1.ScopedResourceSelectorRequirement) bool {
	switch req.Operator {
	case corev1.ScopeSelectorOpExists:
		return name != ""
	case corev1.ScopeSelectorOpDoesNotExist:
		return name == ""
	case corev1.ScopeSelectorOpIn:
		return slices.Contains(req.Values, name)
	case corev1.ScopeSelectorOpNotIn:
		return !slices.Contains(req.Values, name)
	}
	return false
}

func crossNamespaceAffinity(p *corev1.Pod) bool {
	a := p.Spec.Affinity
	if a == nil {
		return false
	}
	var terms []corev1.PodAffinityTerm
	if a.PodAffinity != nil {
		terms = append(terms, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	if a.PodAntiAffinity != nil {
		terms = append(terms, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
	}
	for _, t := range terms {
		if len(t.Namespaces) > 0 || t.NamespaceSelector != nil {
			return true
		}
	}
	return false
}
