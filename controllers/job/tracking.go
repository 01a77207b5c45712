package job

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// Pods are created with the batch.kubernetes.io/job-tracking finalizer,
// so that a finished pod cannot vanish before the Job has counted it.
// Counting takes two status writes around the finalizer's removal, and a
// restart anywhere in between loses or doubles nothing:
//  1. a finished pod still holding the finalizer goes into
//     status.uncountedTerminatedPods (and, for an Indexed Job that
//     succeeded, its index into status.completedIndexes), written first;
//  2. the finalizer comes off the pod;
//  3. once the cache shows the pod without the finalizer (or gone), it
//     leaves uncountedTerminatedPods and counts in succeeded or failed.
// A pod deleted before it finished is not counted; its finalizer comes
// off at once.

const trackingFinalizer = batchv1.JobTrackingFinalizer

// track runs the protocol's three steps for one sync: it folds counted
// pods into st, records newly finished ones (writing the Job's status
// when it does, and returning the Job as stored then) and releases the
// finalizers. pending reports pods still uncounted after it.
func (c *Controller) track(ctx context.Context, key string, job *batchv1.Job, pods []*corev1.Pod,
	st *batchv1.JobStatus) (out *batchv1.Job, pending bool, err error) {
	fold(job, st, pods)
	release, recorded := record(job, st, pods, c.now())
	if recorded {
		if job, err = c.writeStatus(ctx, key, job, st); err != nil {
			return job, true, err
		}
	}
	err = c.release(ctx, release)
	u := st.UncountedTerminatedPods
	return job, u != nil && len(u.Succeeded)+len(u.Failed) > 0, err
}

// fold moves uncounted pods that no longer hold the finalizer (or are
// gone) into succeeded or failed.
func fold(job *batchv1.Job, st *batchv1.JobStatus, pods []*corev1.Pod) {
	u := st.UncountedTerminatedPods
	if u == nil {
		return
	}
	holding := map[types.UID]bool{}
	for _, pod := range pods {
		holding[pod.UID] = slices.Contains(pod.Finalizers, trackingFinalizer)
	}
	keep := func(uids []types.UID, count *int32) []types.UID {
		var left []types.UID
		for _, uid := range uids {
			if holding[uid] {
				left = append(left, uid)
			} else if count != nil {
				*count++
			}
		}
		return left
	}
	succeeded := &st.Succeeded
	if indexed(job) {
		succeeded = nil // counted by completedIndexes
	}
	u.Succeeded, u.Failed = keep(u.Succeeded, succeeded), keep(u.Failed, &st.Failed)
	if len(u.Succeeded)+len(u.Failed) == 0 {
		st.UncountedTerminatedPods = nil
	}
}

// record adds finished pods holding the finalizer to the uncounted lists
// (recorded reports a change) and returns the pods whose finalizer can
// come off once that is stored.
func record(job *batchv1.Job, st *batchv1.JobStatus, pods []*corev1.Pod, now time.Time) (release []*corev1.Pod, recorded bool) {
	u := st.UncountedTerminatedPods
	if u == nil {
		u = &batchv1.UncountedTerminatedPods{}
	}
	for _, pod := range pods {
		rel, rec := recordPod(job, st, u, pod, now)
		if rel {
			release = append(release, pod)
		}
		recorded = recorded || rec
	}
	if recorded {
		st.UncountedTerminatedPods = u
	}
	return release, recorded
}

// recordPod records one pod holding the finalizer if it finished and is
// not in u yet; release says its finalizer can come off.
func recordPod(job *batchv1.Job, st *batchv1.JobStatus, u *batchv1.UncountedTerminatedPods, pod *corev1.Pod,
	now time.Time) (release, recorded bool) {
	if !slices.Contains(pod.Finalizers, trackingFinalizer) {
		return false, false
	}
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
	default:
		return pod.DeletionTimestamp != nil, false
	}
	if slices.Contains(u.Succeeded, pod.UID) || slices.Contains(u.Failed, pod.UID) {
		return true, false
	}
	if pod.Status.Phase == corev1.PodFailed {
		if !judgeFailure(job, st, pod, now) {
			return true, false
		}
		u.Failed = append(u.Failed, pod.UID)
		return true, true
	}
	u.Succeeded = append(u.Succeeded, pod.UID)
	completeIndex(job, st, pod)
	return true, true
}

// judgeFailure applies podFailurePolicy and backoffLimitPerIndex to a
// newly failed pod; false when the failure is ignored (not counted).
func judgeFailure(job *batchv1.Job, st *batchv1.JobStatus, pod *corev1.Pod, now time.Time) bool {
	action, msg := failureAction(job, pod)
	switch action {
	case batchv1.PodFailurePolicyActionIgnore:
		return false
	case batchv1.PodFailurePolicyActionFailJob:
		if !hasCondition(st, batchv1.JobFailureTarget) {
			setCondition(st, batchv1.JobFailureTarget, batchv1.JobReasonPodFailurePolicy, msg, now)
		}
	}
	if !indexed(job) || job.Spec.BackoffLimitPerIndex == nil {
		return true
	}
	i, ok := podIndex(pod, *job.Spec.Completions)
	if ok && (action == batchv1.PodFailurePolicyActionFailIndex || indexFailures(pod)+1 > int(*job.Spec.BackoffLimitPerIndex)) {
		failed := parseIndexes(ptrValue(st.FailedIndexes), *job.Spec.Completions)
		failed[i] = true
		st.FailedIndexes = ptrTo(failed.String())
	}
	return true
}

// completeIndex adds a succeeded pod's index to an Indexed Job's
// completedIndexes; succeeded is the number of completed indexes.
func completeIndex(job *batchv1.Job, st *batchv1.JobStatus, pod *corev1.Pod) {
	if !indexed(job) || job.Spec.Completions == nil {
		return
	}
	i, ok := podIndex(pod, *job.Spec.Completions)
	if !ok {
		return
	}
	done := parseIndexes(st.CompletedIndexes, *job.Spec.Completions)
	done[i] = true
	st.CompletedIndexes = done.String()
	st.Succeeded = int32(len(done))
}

// release takes the tracking finalizer off pods; a pod changed or gone
// meanwhile is left for the sync its event brings.
func (c *Controller) release(ctx context.Context, pods []*corev1.Pod) error {
	var errs []error
	for _, pod := range pods {
		cp := pod.DeepCopy()
		cp.Finalizers = slices.DeleteFunc(cp.Finalizers, func(f string) bool { return f == trackingFinalizer })
		_, err := c.client.Update(ctx, cp)
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("remove finalizer of pod %s/%s: %w", pod.Namespace, pod.Name, err))
		}
	}
	return errors.Join(errs...)
}
