package cronjob

import (
	"context"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/informer"
)

// ownedJobs are the Jobs cj controls, from the cache (read-only).
func (c *Controller) ownedJobs(cj *batchv1.CronJob) []*batchv1.Job {
	var out []*batchv1.Job
	for _, o := range c.jobInf.ByIndex(informer.IndexOwner, string(cj.UID)) {
		if ref := metav1.GetControllerOf(o); ref != nil && ref.UID == cj.UID {
			out = append(out, o.(*batchv1.Job))
		}
	}
	return out
}

// finished reports a Job that completed (true, true) or failed (true, false).
func finished(j *batchv1.Job) (done, ok bool) {
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return true, true
		case batchv1.JobFailed:
			return true, false
		}
	}
	return false, false
}

func activeJobs(jobs []*batchv1.Job) []*batchv1.Job {
	var out []*batchv1.Job
	for _, j := range jobs {
		if done, _ := finished(j); !done && j.DeletionTimestamp == nil {
			out = append(out, j)
		}
	}
	return out
}

// refreshStatus lists the running Jobs as active and records the latest
// successful completion.
func refreshStatus(cj *batchv1.CronJob, st *batchv1.CronJobStatus, jobs []*batchv1.Job) {
	st.Active = nil
	for _, j := range activeJobs(jobs) {
		st.Active = append(st.Active, corev1.ObjectReference{APIVersion: "batch/v1", Kind: "Job",
			Namespace: j.Namespace, Name: j.Name, UID: j.UID, ResourceVersion: j.ResourceVersion})
	}
	for _, j := range jobs {
		done, ok := finished(j)
		if t := j.Status.CompletionTime; done && ok && t != nil &&
			(st.LastSuccessfulTime == nil || t.After(st.LastSuccessfulTime.Time)) {
			st.LastSuccessfulTime = t.DeepCopy()
		}
	}
	sort.Slice(st.Active, func(a, b int) bool { return st.Active[a].Name < st.Active[b].Name })
}

func dropRef(refs []corev1.ObjectReference, j *batchv1.Job) []corev1.ObjectReference {
	out := refs[:0:0]
	for _, r := range refs {
		if r.UID != j.UID {
			out = append(out, r)
		}
	}
	return out
}

// trimHistory deletes the oldest finished Jobs beyond the successful and
// failed history limits.
func (c *Controller) trimHistory(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) error {
	var succeeded, failed []*batchv1.Job
	for _, j := range jobs {
		if done, ok := finished(j); done && j.DeletionTimestamp == nil {
			if ok {
				succeeded = append(succeeded, j)
			} else {
				failed = append(failed, j)
			}
		}
	}
	for _, set := range []struct {
		jobs  []*batchv1.Job
		limit *int32
	}{{succeeded, cj.Spec.SuccessfulJobsHistoryLimit}, {failed, cj.Spec.FailedJobsHistoryLimit}} {
		if set.limit == nil || len(set.jobs) <= int(*set.limit) {
			continue
		}
		sort.Slice(set.jobs, func(a, b int) bool { return startOf(set.jobs[a]).Before(startOf(set.jobs[b])) })
		for _, j := range set.jobs[:len(set.jobs)-int(*set.limit)] {
			if err := c.deleteJob(ctx, cj, j, "SuccessfulDelete", "Deleted job %s"); err != nil {
				return err
			}
		}
	}
	return nil
}

func startOf(j *batchv1.Job) time.Time {
	if j.Status.StartTime != nil {
		return j.Status.StartTime.Time
	}
	return j.CreationTimestamp.Time
}

// deleteJob deletes a Job and its pods (background propagation).
func (c *Controller) deleteJob(ctx context.Context, cj *batchv1.CronJob, j *batchv1.Job, reason, format string) error {
	err := c.client.Delete(ctx, jobResource, j.Namespace, j.Name, controllers.DeleteOptions{UID: string(j.UID)})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	c.rec.Eventf(cj, corev1.EventTypeNormal, reason, format, j.Name)
	return nil
}
