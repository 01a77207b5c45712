package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ReplicationController is served because kubectl's built-in prune
// allow-list (`kubectl apply --prune` with default flags, 1.27-1.33)
// names it: kubectl refuses to prune when the server lacks any kind of
// that list. Deployments are what to use; no controller runs these.
func init() {
	register(&Resource{Version: "v1", Name: "replicationcontrollers", Singular: "replicationcontroller",
		Kind: "ReplicationController", Namespaced: true, ShortNames: []string{"rc"}, Categories: []string{"all"},
		Subresources: []string{"status"}, Generation: true,
		StoredOnly: "no controller runs them (use a Deployment)",
		newObject:  func() Object { return &corev1.ReplicationController{} },
		newList:    func() runtime.Object { return &corev1.ReplicationControllerList{} }},
		Rules{Default: func(obj Object) { defaultReplicationController(obj.(*corev1.ReplicationController)) },
			Validate: func(obj Object) field.ErrorList {
				return validateReplicationController(obj.(*corev1.ReplicationController))
			}})
}

// defaultReplicationController fills in what upstream does: the selector
// and labels from the template's labels, one replica, pod defaults.
func defaultReplicationController(rc *corev1.ReplicationController) {
	s := &rc.Spec
	if s.Replicas == nil {
		s.Replicas = ptrTo(int32(1))
	}
	if s.Template == nil {
		return
	}
	if len(s.Selector) == 0 {
		s.Selector = s.Template.Labels
	}
	if len(rc.Labels) == 0 {
		rc.Labels = s.Template.Labels
	}
	defaultPodSpec(&s.Template.Spec)
}

// validateReplicationController checks the spec with upstream's rules:
// a non-empty selector matching the template's labels, a valid pod
// template restarting Always, non-negative counts.
func validateReplicationController(rc *corev1.ReplicationController) field.ErrorList {
	s := &rc.Spec
	errs := nonNegative(s.Replicas, specPath.Child("replicas"))
	errs = append(errs, nonNegative(&s.MinReadySeconds, specPath.Child("minReadySeconds"))...)
	if s.Template == nil {
		return append(errs, field.Required(specPath.Child("template"), ""))
	}
	var sel *metav1.LabelSelector
	if len(s.Selector) > 0 {
		sel = &metav1.LabelSelector{MatchLabels: s.Selector}
	}
	return append(errs, validateSelectedTemplate("replicationcontroller", sel, s.Template, onlyAlways)...)
}
