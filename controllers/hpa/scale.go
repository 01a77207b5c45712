package hpa

import (
	"context"
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

// scale holds desired to the behavior and the bounds, writes the target's
// replicas when they change, and sets AbleToScale and ScalingLimited.
func (c *Controller) scale(ctx context.Context, key string, hpa *autoscalingv2.HorizontalPodAutoscaler, target api.Object, current, desired int32) error {
	now := c.now()
	h := c.historyOf(key, true)
	b := hpa.Spec.Behavior
	if b == nil {
		b = defaultBehavior()
	}
	stable := h.stabilize(now, current, desired, b)
	able, ableReason, ableMsg := corev1.ConditionTrue, "ReadyForNewScale", "recommended size matches current size"
	if stable != desired {
		ableReason, ableMsg = "ScaleDownStabilized", "recent recommendations were higher than current one, applying the highest recent recommendation"
		if desired > current {
			ableReason, ableMsg = "ScaleUpStabilized", "recent recommendations were lower than current one, applying the lowest recent recommendation"
		}
	}
	next, limited := h.limit(now, current, stable, b)
	next, boundReason := bound(hpa, next)
	hpa.Status.DesiredReplicas = next
	setLimited(hpa, boundReason, limited, stable > current, now)
	if next != current {
		if err := c.write(ctx, target, next); err != nil {
			setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: "+err.Error(), now)
			c.rec.Eventf(hpa, corev1.EventTypeWarning, "FailedRescale", "New size: %d; error: %v", next, err)
			return err
		}
		h.record(now, current, next)
		t := metav1.NewTime(now)
		hpa.Status.LastScaleTime = &t
		able, ableReason, ableMsg = corev1.ConditionTrue, "SucceededRescale", fmt.Sprintf("the HPA controller was able to update the target scale to %d", next)
		c.rec.Eventf(hpa, corev1.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", next, scaleReason(next > current))
	}
	setCondition(hpa, autoscalingv2.AbleToScale, able, ableReason, ableMsg, now)
	return nil
}

// setLimited sets ScalingLimited: the bounds' reason if they held the
// count, the policies' if they did, DesiredWithinRange otherwise.
func setLimited(hpa *autoscalingv2.HorizontalPodAutoscaler, boundReason string, limited, up bool, now time.Time) {
	switch {
	case boundReason != "":
		setCondition(hpa, autoscalingv2.ScalingLimited, corev1.ConditionTrue, boundReason, "the desired replica count is beyond the HPA's bounds", now)
	case limited && up:
		setCondition(hpa, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate", now)
	case limited:
		setCondition(hpa, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate", now)
	default:
		setCondition(hpa, autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange", "the desired count is within the acceptable range", now)
	}
}

func scaleReason(up bool) string {
	if up {
		return "a metric above target"
	}
	return "All metrics below target"
}

// bound holds n between minReplicas and maxReplicas, with the reason when
// it had to.
func bound(hpa *autoscalingv2.HorizontalPodAutoscaler, n int32) (int32, string) {
	switch {
	case n < minReplicas(hpa):
		return minReplicas(hpa), "TooFewReplicas"
	case n > hpa.Spec.MaxReplicas:
		return hpa.Spec.MaxReplicas, "TooManyReplicas"
	}
	return n, ""
}

// write sets the target's replicas through the same rules as its scale
// subresource (api.SetScale).
func (c *Controller) write(ctx context.Context, target api.Object, replicas int32) error {
	obj := target.DeepCopyObject().(api.Object)
	scale, err := api.ScaleFor(obj)
	if err != nil {
		return err
	}
	scale.Spec.Replicas = replicas
	if err := api.SetScale(obj, scale); err != nil {
		return err
	}
	_, err = c.client.Update(ctx, obj)
	return err
}

// setCondition sets one condition, moving its transition time only when
// its status changes.
func setCondition(hpa *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, msg string, now time.Time) {
	conds := hpa.Status.Conditions
	for i := range conds {
		if conds[i].Type != t {
			continue
		}
		if conds[i].Status != status {
			conds[i].LastTransitionTime = metav1.NewTime(now)
		}
		conds[i].Status, conds[i].Reason, conds[i].Message = status, reason, msg
		return
	}
	hpa.Status.Conditions = append(conds, autoscalingv2.HorizontalPodAutoscalerCondition{Type: t, Status: status,
		Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(now)})
}

func apiEqualStatus(a, b *autoscalingv2.HorizontalPodAutoscalerStatus) bool {
	return equality.Semantic.DeepEqual(a, b)
}
