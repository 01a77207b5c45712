package hpa

import (
	"context"
	"errors"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// Sync looks at one HPA: it is idempotent and requeues the HPA for the
// next sync period.
func (c *Controller) Sync(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	obj, ok := c.hpaInf.Get(ns, name)
	if !ok {
		c.historyOf(key, false)
		return nil
	}
	defer c.queue.AddAfter(key, c.period)
	hpa := obj.(*autoscalingv2.HorizontalPodAutoscaler).DeepCopy()
	st := hpa.Status.DeepCopy()
	err := c.reconcile(ctx, key, hpa)
	if apiEqualStatus(st, &hpa.Status) {
		return err
	}
	if _, uerr := c.client.UpdateStatus(ctx, hpa); uerr != nil && !apierrors.IsNotFound(uerr) {
		return errors.Join(err, fmt.Errorf("update status of %s: %w", key, uerr))
	}
	return err
}

// targetResource maps a scaleTargetRef onto a served resource with a
// scale subresource.
func targetResource(ref autoscalingv2.CrossVersionObjectReference) (*api.Resource, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, fmt.Errorf("scaleTargetRef.apiVersion %q: %w", ref.APIVersion, err)
	}
	for _, res := range api.All() {
		if res.Group == gv.Group && res.Kind == ref.Kind && res.HasSubresource("scale") {
			return res, nil
		}
	}
	return nil, fmt.Errorf("scaleTargetRef: %s %s has no scale subresource", ref.APIVersion, ref.Kind)
}

// reconcile computes and applies the HPA's desired replicas, filling in
// its status; the error is the one the conditions report.
func (c *Controller) reconcile(ctx context.Context, key string, hpa *autoscalingv2.HorizontalPodAutoscaler) error {
	res, err := targetResource(hpa.Spec.ScaleTargetRef)
	if err != nil {
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", err.Error(), c.now())
		return nil
	}
	target, err := c.client.Get(ctx, res, hpa.Namespace, hpa.Spec.ScaleTargetRef.Name)
	if err != nil {
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale",
			fmt.Sprintf("the HPA controller was unable to get the target's current scale: %v", err), c.now())
		return nil
	}
	scale, err := api.ScaleFor(target)
	if err != nil {
		setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", err.Error(), c.now())
		return nil
	}
	current := scale.Spec.Replicas
	hpa.Status.CurrentReplicas = scale.Status.Replicas
	if current == 0 && minReplicas(hpa) != 0 {
		hpa.Status.DesiredReplicas = 0
		setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled",
			"scaling is disabled since the replica count of the target is zero", c.now())
		return nil
	}
	desired, ok := c.desired(hpa, scale.Status.Selector, current)
	if !ok {
		return nil
	}
	return c.scale(ctx, key, hpa, target, current, desired)
}

func minReplicas(hpa *autoscalingv2.HorizontalPodAutoscaler) int32 {
	if hpa.Spec.MinReplicas == nil {
		return 1
	}
	return *hpa.Spec.MinReplicas
}

// desired computes what the metrics ask for (the highest of them), with
// currentMetrics and ScalingActive; false when no metric could be read.
func (c *Controller) desired(hpa *autoscalingv2.HorizontalPodAutoscaler, selector string, current int32) (int32, bool) {
	sel, err := labels.Parse(selector)
	if err != nil || selector == "" {
		setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSelector",
			fmt.Sprintf("the HPA target's selector %q is not usable: %v", selector, err), c.now())
		return 0, false
	}
	pods := c.podInf.List(hpa.Namespace, sel)
	var best int32 = -1
	var statuses []autoscalingv2.MetricStatus
	var firstErr error
	for i, m := range hpa.Spec.Metrics {
		rec, ms, err := c.metricReplicas(m, pods, current)
		if err != nil {
			firstErr = cmpErr(firstErr, fmt.Errorf("spec.metrics[%d]: %w", i, err))
			continue
		}
		statuses = append(statuses, ms)
		best = max(best, rec)
	}
	hpa.Status.CurrentMetrics = statuses
	if best < 0 {
		reason := "FailedGetResourceMetric"
		msg := "the HPA was unable to compute the replica count: no metrics"
		if firstErr != nil {
			msg = "the HPA was unable to compute the replica count: " + firstErr.Error()
		}
		setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, reason, msg, c.now())
		return 0, false
	}
	setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound",
		"the HPA was able to successfully calculate a replica count from "+metricNames(hpa), c.now())
	return best, true
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}
