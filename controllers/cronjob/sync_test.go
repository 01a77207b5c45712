package cronjob

import (
	"strconv"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/bramble-edge/bramble/api"
)

// firstRun is the first start time of a "*/5 * * * *" CronJob created at cj's creation.
func firstRun(t *testing.T, cj *batchv1.CronJob) time.Time {
	s, err := api.ParseSchedule(cj.Spec.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	return s.Next(cj.CreationTimestamp.UTC())
}

func TestCronJobStartsJobsOnSchedule(t *testing.T) {
	h := start(t)
	cj := h.cronJob("backup", nil)
	t1 := firstRun(t, cj)
	if _, jobs := h.syncAt(cj, t1.Add(-time.Second)); len(jobs) != 0 {
		t.Fatalf("got %d jobs before the first start time, want none", len(jobs))
	}
	cur, jobs := h.syncAt(cj, t1.Add(time.Second))
	want := "backup-" + strconv.FormatInt(t1.Unix()/60, 10)
	if len(jobs) != 1 || jobs[0].Name != want || jobs[0].Labels["app"] != "backup" ||
		jobs[0].Annotations[AnnotationScheduledTimestamp] != t1.Format(time.RFC3339) {
		t.Fatalf("got jobs %v, want one %s labelled app=backup with its scheduled time", names(jobs), want)
	}
	if len(cur.Status.Active) != 1 || cur.Status.LastScheduleTime == nil || !cur.Status.LastScheduleTime.Time.Equal(t1) {
		t.Fatalf("got status %+v, want the job active and lastScheduleTime %s", cur.Status, t1)
	}
	if _, jobs = h.syncAt(cur, t1.Add(2*time.Second)); len(jobs) != 1 {
		t.Fatalf("got %d jobs after a second sync of the same start time, want 1", len(jobs))
	}
	// Allow: the next start time adds a Job beside the running one; a
	// whole missed hour starts only the latest.
	cur, jobs = h.syncAt(cur, t1.Add(65*time.Minute))
	if len(jobs) != 2 || len(cur.Status.Active) != 2 || !cur.Status.LastScheduleTime.Time.Equal(t1.Add(65*time.Minute)) {
		t.Fatalf("got jobs %v, status %+v: want the latest missed start time only", names(jobs), cur.Status)
	}
	h.finish(jobs[0], true, t1.Add(66*time.Minute))
	cur, _ = h.syncAt(cur, t1.Add(67*time.Minute))
	if len(cur.Status.Active) != 1 || cur.Status.LastSuccessfulTime == nil {
		t.Fatalf("got status %+v, want one active and lastSuccessfulTime set", cur.Status)
	}
}

func TestCronJobConcurrencyAndSuspend(t *testing.T) {
	h := start(t)
	forbid := h.cronJob("forbid", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent })
	t1 := firstRun(t, forbid)
	cur, _ := h.syncAt(forbid, t1)
	if _, jobs := h.syncAt(cur, t1.Add(5*time.Minute)); len(jobs) != 1 {
		t.Fatalf("Forbid: got jobs %v while one runs, want only the first", names(jobs))
	}
	replace := h.cronJob("replace", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = batchv1.ReplaceConcurrent })
	t1 = firstRun(t, replace)
	cur, first := h.syncAt(replace, t1)
	cur, jobs := h.syncAt(cur, t1.Add(5*time.Minute))
	if len(jobs) != 1 || jobs[0].Name == first[0].Name || len(cur.Status.Active) != 1 {
		t.Fatalf("Replace: got jobs %v (first %s), want the running one replaced", names(jobs), first[0].Name)
	}
	suspended := h.cronJob("paused", func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr(true) })
	if _, jobs := h.syncAt(suspended, firstRun(t, suspended).Add(time.Minute)); len(jobs) != 0 {
		t.Fatalf("suspended: got jobs %v, want none", names(jobs))
	}
	late := h.cronJob("late", func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = ptr(int64(30)) })
	if _, jobs := h.syncAt(late, firstRun(t, late).Add(time.Minute)); len(jobs) != 0 {
		t.Fatalf("startingDeadlineSeconds 30, a minute late: got jobs %v, want none", names(jobs))
	}
}

func TestCronJobTrimsHistory(t *testing.T) {
	h := start(t)
	cj := h.cronJob("hist", func(cj *batchv1.CronJob) {
		cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit = ptr(int32(1)), ptr(int32(0))
	})
	at := firstRun(t, cj)
	cur := cj
	var jobs []*batchv1.Job
	for i := 0; i < 3; i++ {
		cur, jobs = h.syncAt(cur, at.Add(time.Duration(i)*5*time.Minute))
		for _, j := range jobs {
			if done, _ := finished(j); !done {
				h.finish(j, i != 2, at.Add(time.Duration(i)*5*time.Minute+time.Minute))
			}
		}
	}
	_, jobs = h.syncAt(cur, at.Add(11*time.Minute))
	if len(jobs) != 1 || jobs[0].Name != jobName(cj, at.Add(5*time.Minute)) {
		t.Fatalf("got jobs %v, want only the newest succeeded (%s); the failed one and the older success deleted",
			names(jobs), jobName(cj, at.Add(5*time.Minute)))
	}
}

func names(jobs []*batchv1.Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.Name)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
