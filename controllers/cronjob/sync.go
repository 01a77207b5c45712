package cronjob

import (
	"context"
	"errors"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// AnnotationScheduledTimestamp records on a Job the start time it was
// made for, in the CronJob's time zone.
const AnnotationScheduledTimestamp = "batch.kubernetes.io/cronjob-scheduled-timestamp"

// Sync brings one CronJob up to date at the controller's now: its
// status from its Jobs, the history trimmed, the Job of the latest
// missed start time created when that is allowed, and the key requeued
// for the next start time. It is exported for tests that move the clock.
func (c *Controller) Sync(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	o, ok := c.cjInf.Get(ns, name)
	if !ok {
		return nil
	}
	cj := o.(*batchv1.CronJob)
	if cj.DeletionTimestamp != nil {
		return nil
	}
	now := c.now()
	jobs := c.ownedJobs(cj)
	st := cj.Status.DeepCopy()
	refreshStatus(cj, st, jobs)
	err := c.trimHistory(ctx, cj, jobs)
	sched, perr := scheduleOf(cj)
	if perr != nil {
		c.rec.Eventf(cj, corev1.EventTypeWarning, "InvalidSchedule", "invalid schedule: %v", perr)
		return errors.Join(err, c.writeStatus(ctx, cj, st))
	}
	if cj.Spec.Suspend == nil || !*cj.Spec.Suspend {
		err = errors.Join(err, c.startDue(ctx, cj, st, sched, jobs, now))
	}
	if next := sched.next(now); !next.IsZero() {
		c.queue.AddAfter(key, next.Sub(now)+100*time.Millisecond)
	}
	return errors.Join(err, c.writeStatus(ctx, cj, st))
}

// startDue creates the Job of the latest missed start time, unless it
// is too late, exists already, or the concurrency policy forbids it.
func (c *Controller) startDue(ctx context.Context, cj *batchv1.CronJob, st *batchv1.CronJobStatus, sched *schedule, jobs []*batchv1.Job, now time.Time) error {
	at, missed := sched.lastMissed(cj, now)
	if at.IsZero() {
		return nil
	}
	if missed > maxMissed {
		c.rec.Eventf(cj, corev1.EventTypeWarning, "TooManyMissedTimes", "too many missed start times: %d; set or decrease .spec.startingDeadlineSeconds or check clock skew", missed)
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && at.Add(time.Duration(*d)*time.Second).Before(now) {
		c.rec.Eventf(cj, corev1.EventTypeWarning, "MissSchedule", "Missed scheduled time to start a job: %s", at.Format(time.RFC1123Z))
		return nil
	}
	name := jobName(cj, at)
	for _, j := range jobs {
		if j.Name == name {
			return nil
		}
	}
	active := activeJobs(jobs)
	switch {
	case cj.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent && len(active) > 0:
		c.rec.Eventf(cj, corev1.EventTypeNormal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")
		return nil
	case cj.Spec.ConcurrencyPolicy == batchv1.ReplaceConcurrent:
		for _, j := range active {
			if err := c.deleteJob(ctx, cj, j, "SuccessfulDelete", "Deleted job %s"); err != nil {
				return err
			}
			st.Active = dropRef(st.Active, j)
		}
	}
	return c.createJob(ctx, cj, st, sched, at)
}

func (c *Controller) createJob(ctx context.Context, cj *batchv1.CronJob, st *batchv1.CronJobStatus, sched *schedule, at time.Time) error {
	job := jobFor(cj, jobName(cj, at), at.In(sched.loc))
	created, err := c.client.Create(ctx, job)
	if apierrors.IsAlreadyExists(err) {
		return nil // made by an earlier sync whose status write was lost
	}
	if err != nil {
		c.rec.Eventf(cj, corev1.EventTypeWarning, "FailedCreate", "Error creating job: %v", err)
		return err
	}
	c.rec.Eventf(cj, corev1.EventTypeNormal, "SuccessfulCreate", "Created job %s", created.GetName())
	st.Active = append(st.Active, corev1.ObjectReference{APIVersion: "batch/v1", Kind: "Job",
		Namespace: created.GetNamespace(), Name: created.GetName(), UID: created.GetUID(), ResourceVersion: created.GetResourceVersion()})
	t := metav1.NewTime(at)
	st.LastScheduleTime = &t
	return nil
}

// jobFor makes the Job of one start time from the CronJob's template,
// controlled by the CronJob.
func jobFor(cj *batchv1.CronJob, name string, at time.Time) *batchv1.Job {
	tmpl := cj.Spec.JobTemplate.DeepCopy()
	annotations := tmpl.Annotations
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[AnnotationScheduledTimestamp] = at.Format(time.RFC3339)
	return &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: cj.Namespace, Labels: tmpl.Labels, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, batchv1.SchemeGroupVersion.WithKind("CronJob"))}},
		Spec: tmpl.Spec,
	}
}

func (c *Controller) writeStatus(ctx context.Context, cj *batchv1.CronJob, st *batchv1.CronJobStatus) error {
	if equality.Semantic.DeepEqual(&cj.Status, st) {
		return nil
	}
	cp := cj.DeepCopy()
	cp.Status = *st
	_, err := c.client.UpdateStatus(ctx, cp)
	return err
}
