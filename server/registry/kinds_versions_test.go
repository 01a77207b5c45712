package registry

import (
	"context"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"

	"github.com/bramble-edge/bramble/api"
)

var (
	hpaV1 = api.MustLookup("autoscaling", "v1", "horizontalpodautoscalers")
	hpaV2 = api.MustLookup("autoscaling", "v2", "horizontalpodautoscalers")
)

func getAs[T api.Object](t *testing.T, r *Registry, res *api.Resource, name string) T {
	t.Helper()
	obj, err := r.Get(context.Background(), res, "default", name)
	if err != nil {
		t.Fatalf("get %s %s: %v", res.APIVersion(), name, err)
	}
	return obj.(T)
}

// TestHPAServedAsV1AndV2 writes one HPA through each version and reads it
// through the other: the cpu target maps onto a Utilization metric, the
// rest survives a round trip through v1 in annotations.
func TestHPAServedAsV1AndV2(t *testing.T) {
	r := newTestRegistry(t)
	mustCreate(t, r, hpaV1, "metadata: {name: a}\nspec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 5, targetCPUUtilizationPercentage: 60}")
	a := getAs[*autoscalingv2.HorizontalPodAutoscaler](t, r, hpaV2, "a")
	if len(a.Spec.Metrics) != 1 || a.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU || *a.Spec.Metrics[0].Resource.Target.AverageUtilization != 60 ||
		*a.Spec.MinReplicas != 1 || a.Spec.ScaleTargetRef.Name != "web" {
		t.Fatalf("got v2 spec %+v, want one cpu metric at 60%% and minReplicas 1", a.Spec)
	}
	mustCreate(t, r, hpaV2, `metadata: {name: b}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 4
  behavior: {scaleDown: {stabilizationWindowSeconds: 60}}
  metrics:
  - {type: Pods, pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: "10"}}}
  - {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}`)
	b := getAs[*autoscalingv1.HorizontalPodAutoscaler](t, r, hpaV1, "b")
	if b.Spec.TargetCPUUtilizationPercentage == nil || *b.Spec.TargetCPUUtilizationPercentage != 70 ||
		!strings.Contains(b.Annotations[api.AnnotationHPAMetrics], `"rps"`) || !strings.Contains(b.Annotations[api.AnnotationHPABehavior], `"stabilizationWindowSeconds":60`) {
		t.Fatalf("got v1 %+v annotations %v, want cpu 70 and the rest kept", b.Spec, b.Annotations)
	}
	if err := update(t, r, hpaV1, b, func(o *autoscalingv1.HorizontalPodAutoscaler) { o.Spec.MaxReplicas = 8 }); err != nil {
		t.Fatalf("update through v1: %v", err)
	}
	b2 := getAs[*autoscalingv2.HorizontalPodAutoscaler](t, r, hpaV2, "b")
	if b2.Spec.MaxReplicas != 8 || len(b2.Spec.Metrics) != 2 || b2.Spec.Behavior == nil || *b2.Spec.Behavior.ScaleDown.StabilizationWindowSeconds != 60 ||
		len(b2.Annotations) != 0 {
		t.Fatalf("got v2 after a v1 update: max %d metrics %+v behavior %+v annotations %v", b2.Spec.MaxReplicas, b2.Spec.Metrics, b2.Spec.Behavior, b2.Annotations)
	}
	list, err := r.List(context.Background(), hpaV1, "default", ListOptions{})
	if err != nil || len(list.Items) != 2 {
		t.Fatalf("list v1: %v, %d items, want 2", err, len(list.Items))
	}
	if _, ok := list.Items[0].(*autoscalingv1.HorizontalPodAutoscaler); !ok {
		t.Fatalf("list v1 gave %T", list.Items[0])
	}
	_, err = create(t, r, hpaV2, "metadata: {name: c}\nspec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 2, metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization}}}]}")
	wantInvalid(t, "utilization", err, "spec.metrics[0].resource.target.averageUtilization")
}

// TestEventsServedInBothGroups writes an events.k8s.io Event and reads it
// as a core one, and the other way round.
func TestEventsServedInBothGroups(t *testing.T) {
	r := newTestRegistry(t)
	evV1 := api.MustLookup("events.k8s.io", "v1", "events")
	core := api.MustLookup("", "v1", "events")
	mustCreate(t, r, evV1, `metadata: {name: e1}
eventTime: "2026-11-26T10:00:00.000000Z"
reportingController: example.com/scaler
reportingInstance: scaler-1
action: Scale
reason: Scaled
note: scaled to 3
type: Normal
regarding: {kind: Deployment, name: web, namespace: default}`)
	e1 := getAs[*corev1.Event](t, r, core, "e1")
	if e1.Message != "scaled to 3" || e1.InvolvedObject.Name != "web" || e1.ReportingController != "example.com/scaler" || e1.Action != "Scale" {
		t.Fatalf("got core event %+v, want note, regarding and reporter mapped", e1)
	}
	mustCreate(t, r, core, `metadata: {name: e2}
involvedObject: {kind: Pod, name: p, namespace: default}
reason: Pulled
message: pulled
type: Normal
count: 3
source: {component: kubelet, host: pi-1}`)
	e2 := getAs[*eventsv1.Event](t, r, evV1, "e2")
	if e2.Note != "pulled" || e2.Regarding.Name != "p" || e2.ReportingController != "kubelet" || e2.ReportingInstance != "pi-1" ||
		e2.DeprecatedCount != 3 || e2.DeprecatedSource.Host != "pi-1" {
		t.Fatalf("got events.k8s.io event %+v, want message, involvedObject, source and count mapped", e2)
	}
	_, err := create(t, r, evV1, "metadata: {name: e3}\nreason: X\ntype: Normal\nnote: x")
	wantInvalid(t, "reporter", err, "reportingController: Required value")
	wantInvalid(t, "eventTime", err, "eventTime: Required value")
}

// TestHPAStatusSurvivesV1Writes: what a controller wrote to a v2 status
// (conditions, current metrics) is shown through v1 and is still there
// after a spec update through v1.
func TestHPAStatusSurvivesV1Writes(t *testing.T) {
	r := newTestRegistry(t)
	h := mustCreate(t, r, hpaV2, `metadata: {name: s}
spec:
  scaleTargetRef: {kind: Deployment, name: web}
  maxReplicas: 4
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}}]`).(*autoscalingv2.HorizontalPodAutoscaler)
	h.Status = autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 3,
		CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr(int32(75))}}}},
		Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "ReadyForNewScale"}}}
	if _, err := r.Update(context.Background(), hpaV2, "default", "s", "status", h, false); err != nil {
		t.Fatalf("status update: %v", err)
	}
	v1 := getAs[*autoscalingv1.HorizontalPodAutoscaler](t, r, hpaV1, "s")
	if c := v1.Status.CurrentCPUUtilizationPercentage; c == nil || *c != 75 || v1.Status.DesiredReplicas != 3 ||
		!strings.Contains(v1.Annotations[api.AnnotationHPAConditions], "ReadyForNewScale") {
		t.Fatalf("got v1 status %+v annotations %v, want cpu 75%%, 3 desired and the conditions", v1.Status, v1.Annotations)
	}
	if err := update(t, r, hpaV1, v1, func(o *autoscalingv1.HorizontalPodAutoscaler) {
		o.Spec.MaxReplicas = 5
		o.Annotations = nil // as a client replacing the object with its own manifest
	}); err != nil {
		t.Fatalf("spec update through v1: %v", err)
	}
	v2 := getAs[*autoscalingv2.HorizontalPodAutoscaler](t, r, hpaV2, "s")
	if v2.Spec.MaxReplicas != 5 || len(v2.Status.Conditions) != 1 || len(v2.Status.CurrentMetrics) != 1 || v2.Status.CurrentReplicas != 2 {
		t.Fatalf("got v2 %+v after a v1 spec update, want max 5 and the status kept", v2.Status)
	}
}
