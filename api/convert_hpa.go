package api

import (
	"encoding/json"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What autoscaling/v1 cannot say is kept in annotations, under upstream's
// names; their values are autoscaling/v2 JSON (upstream writes its own
// v1 shape of metrics there), so a round trip through v1 loses nothing.
const (
	AnnotationHPAMetrics        = "autoscaling.alpha.kubernetes.io/metrics"
	AnnotationHPACurrentMetrics = "autoscaling.alpha.kubernetes.io/current-metrics"
	AnnotationHPAConditions     = "autoscaling.alpha.kubernetes.io/conditions"
	AnnotationHPABehavior       = "autoscaling.alpha.kubernetes.io/behavior"
)

// hpaV1ToV2 turns targetCPUUtilizationPercentage into a cpu Utilization
// metric and brings back what the annotations kept.
func hpaV1ToV2(obj Object) (Object, error) {
	in := obj.(*autoscalingv1.HorizontalPodAutoscaler)
	out := &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: *in.ObjectMeta.DeepCopy(),
	}
	ref := in.Spec.ScaleTargetRef
	out.Spec = autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: in.Spec.MinReplicas, MaxReplicas: in.Spec.MaxReplicas,
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: ref.Kind, Name: ref.Name, APIVersion: ref.APIVersion}}
	if t := in.Spec.TargetCPUUtilizationPercentage; t != nil {
		out.Spec.Metrics = append(out.Spec.Metrics, cpuUtilization(*t))
	}
	st := &in.Status
	out.Status = autoscalingv2.HorizontalPodAutoscalerStatus{ObservedGeneration: st.ObservedGeneration,
		LastScaleTime: st.LastScaleTime, CurrentReplicas: st.CurrentReplicas, DesiredReplicas: st.DesiredReplicas}
	if c := st.CurrentCPUUtilizationPercentage; c != nil {
		out.Status.CurrentMetrics = append(out.Status.CurrentMetrics, autoscalingv2.MetricStatus{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: c}}})
	}
	a := out.Annotations
	for _, f := range []struct {
		key  string
		into any
	}{{AnnotationHPAMetrics, &out.Spec.Metrics}, {AnnotationHPACurrentMetrics, &out.Status.CurrentMetrics},
		{AnnotationHPAConditions, &out.Status.Conditions}, {AnnotationHPABehavior, &out.Spec.Behavior}} {
		if err := takeAnnotation(a, f.key, f.into); err != nil {
			return nil, err
		}
	}
	if len(a) == 0 {
		out.Annotations = nil
	}
	return out, nil
}

// takeAnnotation decodes a kept field (appending to a list) and removes
// its annotation.
func takeAnnotation(a map[string]string, key string, into any) error {
	v, ok := a[key]
	if !ok {
		return nil
	}
	delete(a, key)
	switch p := into.(type) {
	case *[]autoscalingv2.MetricSpec:
		var more []autoscalingv2.MetricSpec
		err := json.Unmarshal([]byte(v), &more)
		*p = append(*p, more...)
		return annotationErr(key, err)
	case *[]autoscalingv2.MetricStatus:
		var more []autoscalingv2.MetricStatus
		err := json.Unmarshal([]byte(v), &more)
		*p = append(*p, more...)
		return annotationErr(key, err)
	}
	return annotationErr(key, json.Unmarshal([]byte(v), into))
}

func annotationErr(key string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("metadata.annotations[%s]: %w", key, err)
}

// hpaV2ToV1 keeps the first cpu Utilization metric as
// targetCPUUtilizationPercentage and the rest in annotations.
func hpaV2ToV1(obj Object) (Object, error) {
	in := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	out := &autoscalingv1.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: *in.ObjectMeta.DeepCopy(),
	}
	ref := in.Spec.ScaleTargetRef
	out.Spec = autoscalingv1.HorizontalPodAutoscalerSpec{MinReplicas: in.Spec.MinReplicas, MaxReplicas: in.Spec.MaxReplicas,
		ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: ref.Kind, Name: ref.Name, APIVersion: ref.APIVersion}}
	var rest []autoscalingv2.MetricSpec
	for _, m := range in.Spec.Metrics {
		if pct := cpuTarget(m); pct != nil && out.Spec.TargetCPUUtilizationPercentage == nil {
			out.Spec.TargetCPUUtilizationPercentage = pct
			continue
		}
		rest = append(rest, m)
	}
	st := &in.Status
	out.Status = autoscalingv1.HorizontalPodAutoscalerStatus{ObservedGeneration: st.ObservedGeneration,
		LastScaleTime: st.LastScaleTime, CurrentReplicas: st.CurrentReplicas, DesiredReplicas: st.DesiredReplicas}
	var current []autoscalingv2.MetricStatus
	for _, m := range st.CurrentMetrics {
		if r := m.Resource; r != nil && r.Name == corev1.ResourceCPU && r.Current.AverageUtilization != nil &&
			out.Status.CurrentCPUUtilizationPercentage == nil {
			out.Status.CurrentCPUUtilizationPercentage = r.Current.AverageUtilization
			continue
		}
		current = append(current, m)
	}
	keep := map[string]any{AnnotationHPAMetrics: rest, AnnotationHPACurrentMetrics: current, AnnotationHPAConditions: st.Conditions}
	if in.Spec.Behavior != nil {
		keep[AnnotationHPABehavior] = in.Spec.Behavior
	}
	return out, putAnnotations(out, keep)
}

func cpuTarget(m autoscalingv2.MetricSpec) *int32 {
	if r := m.Resource; m.Type == autoscalingv2.ResourceMetricSourceType && r != nil && r.Name == corev1.ResourceCPU &&
		r.Target.Type == autoscalingv2.UtilizationMetricType {
		return r.Target.AverageUtilization
	}
	return nil
}

// putAnnotations stores each non-empty value as JSON under its key.
func putAnnotations(obj metav1.Object, keep map[string]any) error {
	a := obj.GetAnnotations()
	for key, v := range keep {
		if isEmptyList(v) {
			continue
		}
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if a == nil {
			a = map[string]string{}
		}
		a[key] = string(data)
	}
	obj.SetAnnotations(a)
	return nil
}

func isEmptyList(v any) bool {
	switch l := v.(type) {
	case []autoscalingv2.MetricSpec:
		return len(l) == 0
	case []autoscalingv2.MetricStatus:
		return len(l) == 0
	case []autoscalingv2.HorizontalPodAutoscalerCondition:
		return len(l) == 0
	}
	return false
}
