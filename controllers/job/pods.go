package job

import (
	"context"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// podCounts is what a Job's pods say at one sync.
type podCounts struct {
	active      []*corev1.Pod // neither finished nor terminating
	ready       int32
	succeeded   int32
	failed      int32
	restarts    int32     // container restarts of the active pods
	lastFailure time.Time // when the latest failed pod finished
}

// ownedPods is the cached pods job controls.
func (c *Controller) ownedPods(job *batchv1.Job) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range c.podInf.ByIndex(controllers.IndexOwner, string(job.UID)) {
		pod := o.(*corev1.Pod)
		if ref := metav1.GetControllerOf(pod); ref != nil && ref.UID == job.UID && pod.Namespace == job.Namespace {
			out = append(out, pod)
		}
	}
	return out
}

func (c *Controller) countPods(pods []*corev1.Pod) podCounts {
	var n podCounts
	for _, pod := range pods {
		switch {
		case pod.Status.Phase == corev1.PodSucceeded:
			n.succeeded++
		case pod.Status.Phase == corev1.PodFailed:
			n.failed++
			if at := c.finishTime(pod); at.After(n.lastFailure) {
				n.lastFailure = at
			}
		case pod.DeletionTimestamp != nil:
		default:
			n.active = append(n.active, pod)
			if podReady(pod) {
				n.ready++
			}
			n.restarts += restarts(pod)
		}
	}
	return n
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func restarts(pod *corev1.Pod) int32 {
	var n int32
	for _, s := range slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses) {
		n += s.RestartCount
	}
	return n
}

// finishTime is when a failed pod finished: its containers' latest
// termination, else when it stopped being ready, else when this
// controller first saw it failed.
func (c *Controller) finishTime(pod *corev1.Pod) time.Time {
	var at time.Time
	for _, s := range slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses) {
		if t := s.State.Terminated; t != nil && t.FinishedAt.After(at) {
			at = t.FinishedAt.Time
		}
	}
	if !at.IsZero() {
		return at
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionFalse && !cond.LastTransitionTime.IsZero() {
			return cond.LastTransitionTime.Time
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.failedSeen[pod.UID]; ok {
		return t
	}
	c.failedSeen[pod.UID] = c.now()
	return c.failedSeen[pod.UID]
}

// newPod makes one pod of job from its template.
func newPod(job *batchv1.Job) *corev1.Pod {
	t := job.Spec.Template.DeepCopy()
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: job.Name + "-", Namespace: job.Namespace,
			Labels: t.Labels, Annotations: t.Annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Spec: t.Spec,
	}
}

// createPods creates n pods, stopping at the first error; it returns how
// many it created.
func (c *Controller) createPods(ctx context.Context, key string, job *batchv1.Job, n int) (int32, error) {
	for i := range n {
		out, err := c.client.Create(ctx, newPod(job))
		if err != nil {
			c.rec.Eventf(job, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
			return int32(i), fmt.Errorf("create pod of job %s: %w", key, err)
		}
		c.exp.ExpectCreate(key, out.GetName())
		c.rec.Eventf(job, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", out.GetName())
	}
	return int32(n), nil
}

// deletePods deletes pods (gone already is fine) and returns how many
// this call deleted.
func (c *Controller) deletePods(ctx context.Context, key string, job *batchv1.Job, pods []*corev1.Pod) (int32, error) {
	var n int32
	for _, pod := range pods {
		err := c.client.Delete(ctx, podResource, pod.Namespace, pod.Name, controllers.DeleteOptions{UID: string(pod.UID)})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			continue
		}
		if err != nil {
			c.rec.Eventf(job, corev1.EventTypeWarning, "FailedDelete", "Error deleting pod %s: %v", pod.Name, err)
			return n, fmt.Errorf("delete pod %s of job %s: %w", pod.Name, key, err)
		}
		c.exp.ExpectDelete(key, pod.Name, pod.UID)
		c.rec.Eventf(job, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: %s", pod.Name)
		n++
	}
	return n, nil
}
