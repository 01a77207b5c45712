package nodelifecycle

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
)

// MirrorPodAnnotation marks the API copy of a static pod the agent runs
// from a manifest on its own disk.
const MirrorPodAnnotation = corev1.MirrorPodAnnotationKey // kubernetes.io/config.mirror

// syncPod evicts a pod its node's NoExecute taints no longer allow, or
// queues it again for when its toleration runs out, and marks it not
// Ready while its node is unreachable (a node that reports itself not
// Ready still reports its pods, and is trusted on them).
func (c *Controller) syncPod(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	obj, ok := c.podInf.Get(ns, name)
	if !ok {
		return nil
	}
	pod := asPod(obj)
	if pod.DeletionTimestamp != nil || pod.Spec.NodeName == "" {
		return nil
	}
	nodeObj, ok := c.nodeInf.Get("", pod.Spec.NodeName)
	if !ok {
		return nil
	}
	node := asNode(nodeObj)
	if exempt(pod) == "" {
		wait, evict := evictionDelay(pod.Spec.Tolerations, noExecuteTaints(node), c.now())
		switch {
		case evict && wait > 0:
			c.podQueue.AddAfter(key, wait)
		case evict:
			return c.evict(ctx, pod)
		}
	}
	return nil
}

// exempt says why a pod is never evicted ("" when it may be).
func exempt(pod *corev1.Pod) string {
	if _, ok := pod.Annotations[MirrorPodAnnotation]; ok {
		return "static pod"
	}
	ref := metav1.GetControllerOf(pod)
	switch {
	case ref == nil:
		return "no controller"
	case ref.Kind == "DaemonSet" && (ref.APIVersion == "apps/v1" || ref.APIVersion == "extensions/v1beta1"):
		return "DaemonSet pod"
	}
	return ""
}

// evict marks the pod DisruptionTarget (DeletionByTaintManager) through a
// status write, as upstream's taint manager does, so that a Job's
// podFailurePolicy can tell the eviction from a failure, then deletes it
// gracefully. A status write that loses a race is retried with the key.
func (c *Controller) evict(ctx context.Context, pod *corev1.Pod) error {
	next := pod.DeepCopy()
	cond := api.DisruptionTarget(api.DisruptionByTaintManager, "Taint manager: deleting due to NoExecute taint", c.now())
	if api.SetPodCondition(&next.Status, cond) {
		if _, err := c.client.UpdateStatus(ctx, next); apierrors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return fmt.Errorf("mark pod %s disrupted: %w", controllers.KeyOf(pod), err)
		}
	}
	c.events.Eventf(pod, corev1.EventTypeNormal, "TaintManagerEviction", "Marking for deletion Pod %s", controllers.KeyOf(pod))
	err := c.client.Delete(ctx, podsRes, pod.Namespace, pod.Name, controllers.DeleteOptions{UID: string(pod.UID)})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("evict pod %s from node %s: %w", controllers.KeyOf(pod), pod.Spec.NodeName, err)
	}
	c.log.Info("evicted pod from tainted node", "pod", controllers.KeyOf(pod), "node", pod.Spec.NodeName)
	return nil
}

// evictionDelay decides a pod's fate under a node's NoExecute taints:
// evict false when it tolerates them all for ever; otherwise evict true
// and wait how long until it must go (zero: now). A taint no toleration
// matches means now; a matched one lasts the shortest tolerationSeconds of
// its matching tolerations (for ever when none has a limit), counted from
// the taint's timeAdded (now when it has none).
func evictionDelay(tolerations []corev1.Toleration, taints []corev1.Taint, now time.Time) (wait time.Duration, evict bool) {
	var deadline time.Time
	for i := range taints {
		limit, bounded := tolerationLimit(tolerations, &taints[i])
		if !bounded {
			continue
		}
		start := now
		if t := taints[i].TimeAdded; t != nil {
			start = t.Time
		}
		if at := start.Add(limit); !evict || at.Before(deadline) {
			deadline, evict = at, true
		}
	}
	if !evict {
		return 0, false
	}
	return max(deadline.Sub(now), 0), true
}

// tolerationLimit is how long the tolerations let a pod stay under taint;
// bounded false means for ever. No matching toleration: zero, bounded.
func tolerationLimit(tolerations []corev1.Toleration, taint *corev1.Taint) (limit time.Duration, bounded bool) {
	matched := false
	for i := range tolerations {
		t := &tolerations[i]
		if !t.ToleratesTaint(taint) {
			continue
		}
		matched = true
		if t.TolerationSeconds == nil {
			continue
		}
		d := time.Duration(max(*t.TolerationSeconds, 0)) * time.Second
		if !bounded || d < limit {
			limit, bounded = d, true
		}
	}
	if !matched {
		return 0, true
	}
	return limit, bounded
}
