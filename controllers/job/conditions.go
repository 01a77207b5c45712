package job

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// finished reports whether the Job has a true Complete or Failed condition.
func finished(job *batchv1.Job) bool {
	return hasCondition(&job.Status, batchv1.JobComplete) || hasCondition(&job.Status, batchv1.JobFailed)
}

// finishTime is when the Job finished (zero if it has not).
func finishTime(job *batchv1.Job) time.Time {
	if job.Status.CompletionTime != nil {
		return job.Status.CompletionTime.Time
	}
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// failure gives the reason and message for failing the Job now, or "".
func failure(job *batchv1.Job, st *batchv1.JobStatus, cnt podCounts, now time.Time) (reason, message string) {
	for _, c := range st.Conditions {
		if c.Type == batchv1.JobFailureTarget && c.Status == corev1.ConditionTrue && c.Reason == batchv1.JobReasonPodFailurePolicy {
			return c.Reason, c.Message
		}
	}
	if reason, message := indexFailure(job, st); reason != "" {
		return reason, message
	}
	if limit := job.Spec.BackoffLimit; limit != nil && job.Spec.BackoffLimitPerIndex == nil {
		onFailure := job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure
		if st.Failed > *limit || (onFailure && pastRestartLimit(cnt.restarts, *limit)) {
			return batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit"
		}
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil && st.StartTime != nil &&
		!now.Before(st.StartTime.Add(time.Duration(*d)*time.Second)) {
		return batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline"
	}
	return "", ""
}

// pastRestartLimit applies backoffLimit to container restarts, as
// Kubernetes does for restartPolicy OnFailure.
func pastRestartLimit(restarts, limit int32) bool {
	if limit == 0 {
		return restarts > 0
	}
	return restarts >= limit
}

// complete reports whether enough pods have succeeded: completions of
// them, or, without completions, one with none still active.
func complete(job *batchv1.Job, st *batchv1.JobStatus, cnt podCounts) bool {
	if job.Spec.Completions != nil {
		return st.Succeeded >= *job.Spec.Completions
	}
	return st.Succeeded > 0 && len(cnt.active) == 0
}

// finish ends the Job: its active pods go, and it gets the terminal
// condition (Complete or Failed) with the interim one kube 1.31+ shows
// first (SuccessCriteriaMet or FailureTarget); both at once, since pods
// here are deleted without a grace period.
func (c *Controller) finish(ctx context.Context, key string, job *batchv1.Job, cnt podCounts, st *batchv1.JobStatus,
	typ batchv1.JobConditionType, reason, message string, now time.Time) error {
	_, err := c.deletePods(ctx, key, job, cnt.active)
	st.Active, st.Ready = 0, ptrTo(int32(0))
	if typ == batchv1.JobComplete {
		setCondition(st, batchv1.JobSuccessCriteriaMet, reason, message, now)
		setCondition(st, batchv1.JobComplete, reason, message, now)
		st.CompletionTime = &metav1.Time{Time: now}
		c.rec.Eventf(job, corev1.EventTypeNormal, "Completed", "Job completed")
	} else {
		setCondition(st, batchv1.JobFailureTarget, reason, message, now)
		setCondition(st, batchv1.JobFailed, reason, message, now)
		c.rec.Eventf(job, corev1.EventTypeWarning, reason, "%s", message)
	}
	if err != nil {
		return fmt.Errorf("finish job %s: %w", key, err)
	}
	return nil
}

func hasCondition(st *batchv1.JobStatus, typ batchv1.JobConditionType) bool {
	for _, c := range st.Conditions {
		if c.Type == typ && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func setCondition(st *batchv1.JobStatus, typ batchv1.JobConditionType, reason, message string, now time.Time) {
	setConditionStatus(st, typ, corev1.ConditionTrue, reason, message, now)
}

// setConditionStatus sets a condition, keeping its transition time when
// the status does not change.
func setConditionStatus(st *batchv1.JobStatus, typ batchv1.JobConditionType, status corev1.ConditionStatus,
	reason, message string, now time.Time) {
	t := metav1.NewTime(now)
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != typ {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = t
		}
		c.Status, c.Reason, c.Message, c.LastProbeTime = status, reason, message, t
		return
	}
	st.Conditions = append(st.Conditions, batchv1.JobCondition{Type: typ, Status: status,
		Reason: reason, Message: message, LastProbeTime: t, LastTransitionTime: t})
}

// indexFailure fails an Indexed Job with backoffLimitPerIndex whose failed
// indexes exceed maxFailedIndexes, or once every index is either
// completed or failed and some failed.
func indexFailure(job *batchv1.Job, st *batchv1.JobStatus) (reason, message string) {
	if !indexed(job) || job.Spec.BackoffLimitPerIndex == nil {
		return "", ""
	}
	failed := len(parseIndexes(ptrValue(st.FailedIndexes), *job.Spec.Completions))
	if m := job.Spec.MaxFailedIndexes; m != nil && failed > int(*m) {
		return batchv1.JobReasonMaxFailedIndexesExceeded, "Job has exceeded the specified maximal number of failed indexes"
	}
	if failed > 0 && int(st.Succeeded)+failed >= int(*job.Spec.Completions) {
		return batchv1.JobReasonFailedIndexes, "Job has failed indexes"
	}
	return "", ""
}

// parseIndexesOf reads an index list of an Indexed Job.
func parseIndexesOf(job *batchv1.Job, s string) indexSet {
	if !indexed(job) || job.Spec.Completions == nil {
		return indexSet{}
	}
	return parseIndexes(s, *job.Spec.Completions)
}
