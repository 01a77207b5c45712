package job

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/controllers"
)

// podCounts is what a Job's pods say at one sync.
type podCounts struct {
	active      []*corev1.Pod // neither finished nor terminating
	ready       int32
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
		case pod.Status.Phase == corev1.PodFailed:
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

// newPod makes one pod of job from its template, holding the tracking
// finalizer. A pod of an Indexed Job (index >= 0) is named after its
// index, carries it as an annotation, a label and JOB_COMPLETION_INDEX,
// and has the hostname <job>-<index>.
func newPod(job *batchv1.Job, index int) *corev1.Pod {
	t := job.Spec.Template.DeepCopy()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: job.Name + "-", Namespace: job.Namespace,
			Labels: t.Labels, Annotations: t.Annotations, Finalizers: []string{trackingFinalizer},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Spec: t.Spec,
	}
	if index >= 0 {
		setIndex(pod, job.Name, index)
	}
	return pod
}

func setIndex(pod *corev1.Pod, job string, index int) {
	v := strconv.Itoa(index)
	pod.GenerateName = fmt.Sprintf("%s-%d-", job, index)
	pod.Annotations = maps.Clone(pod.Annotations)
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[batchv1.JobCompletionIndexAnnotation] = v
	pod.Labels = maps.Clone(pod.Labels)
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[batchv1.JobCompletionIndexAnnotation] = v
	if pod.Spec.Hostname == "" {
		pod.Spec.Hostname = fmt.Sprintf("%s-%d", job, index)
	}
	env := corev1.EnvVar{Name: "JOB_COMPLETION_INDEX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
		APIVersion: "v1", FieldPath: fmt.Sprintf("metadata.annotations['%s']", batchv1.JobCompletionIndexAnnotation)}}}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			cs[i].Env = append(cs[i].Env, env)
		}
	}
}

// createPods creates n pods (of the indexes to start, for an Indexed
// Job), stopping at the first error; it returns how many it created.
func (c *Controller) createPods(ctx context.Context, key string, job *batchv1.Job, st *batchv1.JobStatus, active []*corev1.Pod, n int) (int32, error) {
	indexes := make([]int, n)
	for i := range indexes {
		indexes[i] = -1
	}
	var failures map[int]int
	if indexed(job) {
		indexes = indexesToStart(*job.Spec.Completions, closedIndexes(job, st), active, n)
		failures = failuresByIndex(c.ownedPods(job), *job.Spec.Completions)
	}
	for i, index := range indexes {
		pod := newPod(job, index)
		if job.Spec.BackoffLimitPerIndex != nil && index >= 0 {
			pod.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(failures[index])
		}
		out, err := c.client.Create(ctx, pod)
		if err != nil {
			c.rec.Eventf(job, corev1.EventTypeWarning, "FailedCreate", "Error creating: %v", err)
			return int32(i), fmt.Errorf("create pod of job %s: %w", key, err)
		}
		c.exp.ExpectCreate(key, out.GetName())
		c.rec.Eventf(job, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", out.GetName())
	}
	return int32(len(indexes)), nil
}

// orphans are the pods holding the tracking finalizer whose Job is gone
// or being deleted (uid, when set, is that Job's).
func (c *Controller) orphans(ns, name string, uid types.UID) []*corev1.Pod {
	var out []*corev1.Pod
	for _, o := range c.podInf.List(ns, nil) {
		pod := o.(*corev1.Pod)
		ref := metav1.GetControllerOfNoCopy(pod)
		if ref == nil || ref.Kind != "Job" || ref.Name != name || (uid != "" && ref.UID != uid) {
			continue
		}
		if slices.Contains(pod.Finalizers, trackingFinalizer) {
			out = append(out, pod)
		}
	}
	return out
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
