package job

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// sync moves one Job on: a finished Job only has its leftover active pods
// deleted and its TTL enforced; otherwise, once the cache shows this
// controller's earlier creates and deletes, the Job is failed, completed,
// suspended or scaled to the pods it wants, and its status written.
func (c *Controller) sync(ctx context.Context, key string) error {
	job, err := c.live(ctx, key)
	if job == nil {
		return err
	}
	ns := job.Namespace
	pods := c.ownedPods(job)
	st := job.Status.DeepCopy()
	job, pending, err := c.track(ctx, key, job, pods, st)
	if err != nil || pending {
		// The finalizer removals' pod events bring the next sync.
		return errors.Join(err, c.writeStatusOnly(ctx, key, job, st))
	}
	if finished(job) {
		_, err := c.deletePods(ctx, key, job, c.countPods(pods).active)
		return errors.Join(err, c.expireTTL(ctx, key, job))
	}
	if !c.exp.Satisfied(key, controllers.CachedPods(c.podInf, ns)) {
		// The pod events still to come requeue the Job; should they never
		// come, the expectations expire and this retry proceeds.
		c.queue.AddAfter(key, expectationTimeout)
		return c.writeStatusOnly(ctx, key, job, st)
	}
	now := c.now()
	cnt := c.countPods(pods)
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		err = c.suspend(ctx, key, job, cnt, st, now)
	} else {
		err = c.advance(ctx, key, job, cnt, st, now)
	}
	return errors.Join(err, c.writeStatusOnly(ctx, key, job, st))
}

// live is the cached Job of key, or nil when it is gone or being
// deleted: its pods' tracking finalizers are then released.
func (c *Controller) live(ctx context.Context, key string) (*batchv1.Job, error) {
	ns, name := controllers.SplitKey(key)
	o, ok := c.jobInf.Get(ns, name)
	if !ok {
		c.exp.Forget(key)
		return nil, c.release(ctx, c.orphans(ns, name, ""))
	}
	job := o.(*batchv1.Job)
	if job.DeletionTimestamp != nil {
		return nil, c.release(ctx, c.orphans(ns, name, job.UID))
	}
	return job, nil
}

// advance fails or completes the Job when it is due, else scales its
// active pods.
func (c *Controller) advance(ctx context.Context, key string, job *batchv1.Job, cnt podCounts, st *batchv1.JobStatus, now time.Time) error {
	resume(st, now)
	if reason, msg := failure(job, st, cnt, now); reason != "" {
		return c.finish(ctx, key, job, cnt, st, batchv1.JobFailed, reason, msg, now)
	}
	if msg, ok := successPolicyMet(job, parseIndexesOf(job, st.CompletedIndexes)); ok {
		return c.finish(ctx, key, job, cnt, st, batchv1.JobComplete, batchv1.JobReasonSuccessPolicy, msg, now)
	}
	if complete(job, st, cnt) {
		return c.finish(ctx, key, job, cnt, st, batchv1.JobComplete,
			batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods", now)
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil {
		c.queue.AddAfter(key, st.StartTime.Add(time.Duration(*d)*time.Second).Sub(now))
	}
	st.Ready = ptrTo(cnt.ready)
	return c.scale(ctx, key, job, cnt, st, now)
}

// scale creates or deletes pods to reach the number the Job wants active;
// creating waits out the failure back-off.
func (c *Controller) scale(ctx context.Context, key string, job *batchv1.Job, cnt podCounts, st *batchv1.JobStatus, now time.Time) error {
	active := int32(len(cnt.active))
	st.Active = active
	if indexed(job) {
		surplus := surplusIndexed(*job.Spec.Completions, closedIndexes(job, st), cnt.active)
		if len(surplus) > 0 {
			n, err := c.deletePods(ctx, key, job, surplus)
			st.Active -= n
			return err
		}
	}
	want := wantActive(job, st, active)
	switch {
	case active > want:
		victims := slices.Clone(cnt.active)
		slices.SortFunc(victims, deleteFirst)
		n, err := c.deletePods(ctx, key, job, victims[:active-want])
		st.Active -= n
		return err
	case active < want:
		if wait := c.retryWait(st, cnt, now); wait > 0 {
			c.queue.AddAfter(key, wait)
			return nil
		}
		n, err := c.createPods(ctx, key, job, st, cnt.active, int(want-active))
		st.Active += n
		return err
	}
	return nil
}

// deleteFirst orders the pods to delete when there are too many: not
// ready before ready, then the newest first.
func deleteFirst(a, b *corev1.Pod) int {
	if ra, rb := podReady(a), podReady(b); ra != rb {
		if rb {
			return -1
		}
		return 1
	}
	if c := b.CreationTimestamp.Compare(a.CreationTimestamp.Time); c != 0 {
		return c
	}
	return cmp.Compare(b.Name, a.Name)
}

// wantActive is how many pods should run now: parallelism, but no more
// than the completions still missing; a Job without completions starts
// no new pod once one has succeeded.
func wantActive(job *batchv1.Job, st *batchv1.JobStatus, active int32) int32 {
	par := int32(1)
	if job.Spec.Parallelism != nil {
		par = *job.Spec.Parallelism
	}
	if job.Spec.Completions == nil {
		if st.Succeeded > 0 {
			return min(active, par)
		}
		return par
	}
	left := *job.Spec.Completions - st.Succeeded
	if indexed(job) {
		left -= int32(len(parseIndexes(ptrValue(st.FailedIndexes), *job.Spec.Completions)))
	}
	return max(min(par, left), 0)
}

// retryWait is how long pod creation must still wait after the latest
// failure: BackoffBase doubled per failure beyond the first, capped.
func (c *Controller) retryWait(st *batchv1.JobStatus, cnt podCounts, now time.Time) time.Duration {
	if st.Failed == 0 || cnt.lastFailure.IsZero() {
		return 0
	}
	delay := c.BackoffBase
	for i := int32(1); i < st.Failed && delay < c.BackoffMax; i++ {
		delay *= 2
	}
	return cnt.lastFailure.Add(min(delay, c.BackoffMax)).Sub(now)
}

// suspend deletes the active pods and marks the Job suspended.
func (c *Controller) suspend(ctx context.Context, key string, job *batchv1.Job, cnt podCounts, st *batchv1.JobStatus, now time.Time) error {
	_, err := c.deletePods(ctx, key, job, cnt.active)
	st.Active, st.Ready = 0, ptrTo(int32(0))
	if !hasCondition(st, batchv1.JobSuspended) {
		setCondition(st, batchv1.JobSuspended, "JobSuspended", "Job suspended", now)
		c.rec.Eventf(job, corev1.EventTypeNormal, "Suspended", "Job suspended")
	}
	return err
}

// resume starts the clock of a Job that is new or no longer suspended.
func resume(st *batchv1.JobStatus, now time.Time) {
	if hasCondition(st, batchv1.JobSuspended) {
		setConditionStatus(st, batchv1.JobSuspended, corev1.ConditionFalse, "JobResumed", "Job resumed", now)
		st.StartTime = nil
	}
	if st.StartTime == nil {
		st.StartTime = &metav1.Time{Time: now}
	}
}

// writeStatus stores st when it differs from the Job's status and
// returns the Job as stored.
func (c *Controller) writeStatus(ctx context.Context, key string, job *batchv1.Job, st *batchv1.JobStatus) (*batchv1.Job, error) {
	if equality.Semantic.DeepEqual(job.Status, *st) {
		return job, nil
	}
	cp := job.DeepCopy()
	cp.Status = *st.DeepCopy()
	out, err := c.client.UpdateStatus(ctx, cp)
	if err != nil {
		return job, fmt.Errorf("update status of job %s: %w", key, err)
	}
	return out.(*batchv1.Job), nil
}

func (c *Controller) writeStatusOnly(ctx context.Context, key string, job *batchv1.Job, st *batchv1.JobStatus) error {
	_, err := c.writeStatus(ctx, key, job, st)
	return err
}

func ptrTo[T any](v T) *T { return &v }
