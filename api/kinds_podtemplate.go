package api

import (
	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func init() {
	register(&Resource{Version: "v1", Name: "podtemplates", Singular: "podtemplate", Kind: "PodTemplate",
		Namespaced: true,
		newObject:  func() Object { return &corev1.PodTemplate{} },
		newList:    func() runtime.Object { return &corev1.PodTemplateList{} }},
		Rules{
			Default:  func(o Object) { defaultPodSpec(&o.(*corev1.PodTemplate).Template.Spec) },
			Validate: func(o Object) field.ErrorList { return validatePodTemplate(o.(*corev1.PodTemplate)) },
		})
}

// validatePodTemplate checks the template as a workload's would be.
func validatePodTemplate(t *corev1.PodTemplate) field.ErrorList {
	tp := field.NewPath("template")
	errs := metav1validation.ValidateLabels(t.Template.Labels, tp.Child("metadata", "labels"))
	return append(errs, validatePodSpec(&t.Template.Spec, tp.Child("spec"))...)
}
