package api

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// HorizontalPodAutoscalers are stored as autoscaling/v2 and served as v2
// and v1 (convert_hpa.go); controllers/hpa scales by them.
func init() {
	v2 := &Resource{Group: "autoscaling", Version: "v2", Name: "horizontalpodautoscalers", Singular: "horizontalpodautoscaler",
		Kind: "HorizontalPodAutoscaler", Namespaced: true, ShortNames: []string{"hpa"}, Categories: []string{"all"},
		Subresources: []string{"status"},
		newObject:    func() Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
		newList:      func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscalerList{} }}
	register(v2, Rules{
		Default:  func(o Object) { defaultHPA(o.(*autoscalingv2.HorizontalPodAutoscaler)) },
		Validate: func(o Object) field.ErrorList { return validateHPA(o.(*autoscalingv2.HorizontalPodAutoscaler)) },
	})
	v1 := &Resource{Group: "autoscaling", Version: "v1", Name: "horizontalpodautoscalers", Singular: "horizontalpodautoscaler",
		Kind: "HorizontalPodAutoscaler", Namespaced: true, ShortNames: []string{"hpa"}, Categories: []string{"all"},
		Subresources: []string{"status"},
		newObject:    func() Object { return &autoscalingv1.HorizontalPodAutoscaler{} },
		newList:      func() runtime.Object { return &autoscalingv1.HorizontalPodAutoscalerList{} }}
	registerVersion(v1, v2, conversion{toStorage: hpaV1ToV2, fromStorage: hpaV2ToV1,
		statusAnnotations: []string{AnnotationHPACurrentMetrics, AnnotationHPAConditions}}, Rules{
		Default:  func(o Object) { defaultHPAv1(o.(*autoscalingv1.HorizontalPodAutoscaler)) },
		Validate: func(o Object) field.ErrorList { return validateHPAv1(o.(*autoscalingv1.HorizontalPodAutoscaler)) },
	})
}

// defaultHPA sets upstream's autoscaling/v2 defaults: one replica at
// least, 80 % CPU when no metric is given, and the scaling rules a given
// behavior leaves out.
func defaultHPA(h *autoscalingv2.HorizontalPodAutoscaler) {
	s := &h.Spec
	if s.MinReplicas == nil {
		s.MinReplicas = ptrTo(int32(1))
	}
	if len(s.Metrics) == 0 {
		s.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(80)}
	}
	if b := s.Behavior; b != nil {
		b.ScaleUp = fillScalingRules(b.ScaleUp, 0, []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}})
		b.ScaleDown = fillScalingRules(b.ScaleDown, 300, []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}})
	}
}

func fillScalingRules(r *autoscalingv2.HPAScalingRules, window int32, policies []autoscalingv2.HPAScalingPolicy) *autoscalingv2.HPAScalingRules {
	if r == nil {
		r = &autoscalingv2.HPAScalingRules{}
	}
	if r.StabilizationWindowSeconds == nil {
		r.StabilizationWindowSeconds = ptrTo(window)
	}
	if r.SelectPolicy == nil {
		r.SelectPolicy = ptrTo(autoscalingv2.MaxChangePolicySelect)
	}
	if r.Policies == nil {
		r.Policies = policies
	}
	return r
}

func defaultHPAv1(h *autoscalingv1.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = ptrTo(int32(1))
	}
}

// cpuUtilization is the metric autoscaling/v1's targetCPUUtilizationPercentage stands for.
func cpuUtilization(pct int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &pct}}}
}
