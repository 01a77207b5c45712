package hpa

import (
	"fmt"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/api"
)

// metricReplicas computes one Resource metric's recommendation over the
// target's pods (other metric types are not served: no custom or
// external metrics API exists here).
func (c *Controller) metricReplicas(m autoscalingv2.MetricSpec, pods []api.Object, current int32) (int32, autoscalingv2.MetricStatus, error) {
	var src *autoscalingv2.ResourceMetricSource
	switch {
	case m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil:
		src = m.Resource
	case m.Type == autoscalingv2.ContainerResourceMetricSourceType && m.ContainerResource != nil:
		return 0, autoscalingv2.MetricStatus{}, fmt.Errorf("ContainerResource metrics are not supported yet")
	default:
		return 0, autoscalingv2.MetricStatus{}, fmt.Errorf("%s metrics are not supported: no custom or external metrics API", m.Type)
	}
	if src.Name != corev1.ResourceCPU && src.Name != corev1.ResourceMemory {
		return 0, autoscalingv2.MetricStatus{}, fmt.Errorf("resource %s: only cpu and memory are measured", src.Name)
	}
	t, err := targetOf(src)
	if err != nil {
		return 0, autoscalingv2.MetricStatus{}, err
	}
	samples := c.samples(pods, src.Name)
	if len(samples) == 0 {
		return 0, autoscalingv2.MetricStatus{}, fmt.Errorf("no pods of the target are running")
	}
	rec, err := replicasFor(current, samples, t)
	if err != nil {
		return 0, autoscalingv2.MetricStatus{}, fmt.Errorf("resource %s: %w", src.Name, err)
	}
	return rec.replicas, metricStatus(src.Name, t, rec), nil
}

// targetOf reads a Resource metric's target; CPU ignores not-ready pods
// on a scale-up, as upstream does.
func targetOf(src *autoscalingv2.ResourceMetricSource) (target, error) {
	t := target{ignoreUnready: src.Name == corev1.ResourceCPU}
	switch {
	case src.Target.Type == autoscalingv2.UtilizationMetricType && src.Target.AverageUtilization != nil && *src.Target.AverageUtilization > 0:
		t.utilization = *src.Target.AverageUtilization
	case src.Target.Type == autoscalingv2.AverageValueMetricType && src.Target.AverageValue != nil && src.Target.AverageValue.Sign() > 0:
		t.averageValue = inUnits(src.Name, *src.Target.AverageValue)
	default:
		return t, fmt.Errorf("resource %s: target type %s is not supported for a Resource metric", src.Name, src.Target.Type)
	}
	return t, nil
}

// inUnits is a quantity in millicores (cpu) or bytes (memory).
func inUnits(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// samples reads each running pod's usage and requests of the resource;
// pods being deleted or finished do not count.
func (c *Controller) samples(pods []api.Object, name corev1.ResourceName) []podSample {
	var out []podSample
	for _, o := range pods {
		pod := o.(*corev1.Pod)
		if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
			continue
		}
		s := podSample{ready: podReady(pod)}
		for _, ctr := range pod.Spec.Containers {
			if q, ok := ctr.Resources.Requests[name]; ok {
				s.request += inUnits(name, q)
			}
		}
		if c.metrics != nil {
			cpu, mem, ok := c.metrics.PodUsage(pod.Namespace, pod.Name)
			s.hasUsage = ok && pod.Status.Phase == corev1.PodRunning
			s.usage = mem
			if name == corev1.ResourceCPU {
				s.usage = cpu
			}
		}
		out = append(out, s)
	}
	return out
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// metricStatus is the currentMetrics entry of one Resource metric.
func metricStatus(name corev1.ResourceName, t target, rec recommendation) autoscalingv2.MetricStatus {
	cur := autoscalingv2.MetricValueStatus{}
	if name == corev1.ResourceCPU {
		cur.AverageValue = resource.NewMilliQuantity(rec.averageValue, resource.DecimalSI)
	} else {
		cur.AverageValue = resource.NewQuantity(rec.averageValue, resource.BinarySI)
	}
	if t.utilization > 0 {
		u := rec.utilization
		cur.AverageUtilization = &u
	}
	return autoscalingv2.MetricStatus{Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricStatus{Name: name, Current: cur}}
}

// metricNames names the HPA's metrics for the ScalingActive message.
func metricNames(hpa *autoscalingv2.HorizontalPodAutoscaler) string {
	var names []string
	for _, m := range hpa.Spec.Metrics {
		if m.Resource != nil {
			names = append(names, string(m.Resource.Name)+" resource")
		}
	}
	if len(names) == 0 {
		return "its metrics"
	}
	return strings.Join(names, " and ")
}
