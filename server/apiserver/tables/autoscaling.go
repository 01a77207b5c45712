package tables

import (
	"fmt"
	"strings"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// Both served versions of a HorizontalPodAutoscaler, and both groups'
// Events, print the same columns: a v1 HPA is printed as its v2 form, an
// events.k8s.io Event as its core one.
func init() { queuePrinters(autoscalingPrinters) }

func autoscalingPrinters() {
	cols := []string{"Name", "string", "Reference", "string", "Targets", "string", "MinPods", "string",
		"MaxPods", "integer", "Replicas", "integer", "Age", "string"}
	register("HorizontalPodAutoscaler", hpaCells, cols...)
	register("autoscaling/v1/HorizontalPodAutoscaler", converted("autoscaling", "v2", "horizontalpodautoscalers", hpaCells), cols...)
	register("events.k8s.io/v1/Event", converted("", "v1", "events", eventCells), "Last Seen", "string", "Type", "string",
		"Reason", "string", "Object", "string", "Subobject+", "string", "Source+", "string", "Message", "string",
		"First Seen+", "string", "Count+", "integer", "Name+", "string")
	for k, v := range map[string]string{
		"Reference": "The object it scales.", "Targets": "Current and target values of its metrics.",
		"MinPods": "The fewest replicas it scales to.", "MaxPods": "The most replicas it scales to.",
		"Replicas": "Replicas it last saw.",
	} {
		if _, ok := columnHelp[k]; !ok {
			columnHelp[k] = v
		}
	}
}

// converted prints obj as the named resource's version would be printed.
func converted(group, version, name string, cells func(api.Object, time.Time) []any) func(api.Object, time.Time) []any {
	to := api.MustLookup(group, version, name)
	return func(obj api.Object, now time.Time) []any {
		out, err := to.Convert(obj)
		if err != nil {
			return []any{obj.GetName(), err.Error()}
		}
		return cells(out, now)
	}
}

func hpaCells(obj api.Object, now time.Time) []any {
	h := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	ref := h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name
	minPods := "<unset>"
	if h.Spec.MinReplicas != nil {
		minPods = fmt.Sprint(*h.Spec.MinReplicas)
	}
	return []any{h.Name, ref, hpaTargets(h.Spec.Metrics, h.Status.CurrentMetrics), minPods,
		int64(h.Spec.MaxReplicas), int64(h.Status.CurrentReplicas), age(h.CreationTimestamp, now)}
}

// hpaTargets prints "current/target" per metric as kubectl does, the
// first two then "+ N more...".
func hpaTargets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	var list []string
	for i, s := range specs {
		var st *autoscalingv2.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		list = append(list, metricTarget(s, st))
	}
	if len(list) > 2 {
		return strings.Join(list[:2], ", ") + fmt.Sprintf(" + %d more...", len(list)-2)
	}
	return strings.Join(list, ", ")
}

func metricTarget(s autoscalingv2.MetricSpec, st *autoscalingv2.MetricStatus) string {
	var name corev1.ResourceName
	var t autoscalingv2.MetricTarget
	var cur *autoscalingv2.MetricValueStatus
	switch {
	case s.Resource != nil:
		name, t = s.Resource.Name, s.Resource.Target
		if st != nil && st.Resource != nil {
			cur = &st.Resource.Current
		}
	case s.ContainerResource != nil:
		name, t = s.ContainerResource.Name, s.ContainerResource.Target
		if st != nil && st.ContainerResource != nil {
			cur = &st.ContainerResource.Current
		}
	case s.Pods != nil:
		t = s.Pods.Target
	case s.Object != nil:
		t = s.Object.Target
	case s.External != nil:
		t = s.External.Target
	default:
		return "<unknown type>"
	}
	out := valuePair(t, cur)
	if name != "" {
		out = string(name) + ": " + out
	}
	return out
}

// valuePair is "current/target", with "(avg)" for average values of
// objects and external metrics as kubectl prints them.
func valuePair(t autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	now := "<unknown>"
	switch {
	case t.AverageUtilization != nil || t.Type == autoscalingv2.UtilizationMetricType:
		if cur != nil && cur.AverageUtilization != nil {
			now = fmt.Sprintf("%d%%", *cur.AverageUtilization)
		}
		target := "<auto>"
		if t.AverageUtilization != nil {
			target = fmt.Sprintf("%d%%", *t.AverageUtilization)
		}
		return now + "/" + target
	case t.AverageValue != nil:
		if cur != nil && cur.AverageValue != nil {
			now = cur.AverageValue.String()
		}
		return now + "/" + t.AverageValue.String()
	case t.Value != nil:
		if cur != nil && cur.Value != nil {
			now = cur.Value.String()
		}
		return now + "/" + t.Value.String()
	}
	return now + "/<unset>"
}
