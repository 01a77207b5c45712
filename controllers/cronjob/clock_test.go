package cronjob

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
)

// An edge device's clock stepped forward by hours (NTP after a boot
// without a real-time clock) starts at most one catch-up run, and only
// when that run is still within startingDeadlineSeconds.
func TestCronJobClockJumpForwardStartsAtMostOneRun(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadline *int64
		after    time.Duration // past the 3-hour jump
		want     int           // jobs after the jump, the first run included
	}{
		{"no deadline", nil, 2 * time.Minute, 2},
		{"within deadline", ptr(int64(300)), 2 * time.Minute, 2},
		{"past deadline", ptr(int64(60)), 2 * time.Minute, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t)
			cj := h.cronJob("sweep", func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = tc.deadline })
			t1 := firstRun(t, cj)
			cur, _ := h.syncAt(cj, t1)
			jumped := t1.Add(3*time.Hour + tc.after)
			var jobs []*batchv1.Job
			for i := 0; i < 3; i++ { // the controller syncs again and again at the new time
				cur, jobs = h.syncAt(cur, jumped.Add(time.Duration(i)*time.Second))
			}
			if len(jobs) != tc.want {
				t.Fatalf("got jobs %v after a 3h jump, want %d (at most one catch-up run)", names(jobs), tc.want)
			}
			if tc.want == 2 && jobs[1].Name != jobName(cj, t1.Add(3*time.Hour)) && jobs[0].Name != jobName(cj, t1.Add(3*time.Hour)) {
				t.Fatalf("got jobs %v, want the catch-up run to be the latest missed start %s", names(jobs), t1.Add(3*time.Hour))
			}
		})
	}
}

// A clock stepped back never runs a start time again, even once the Job
// of that time was deleted by the history limit.
func TestCronJobClockJumpBackwardNoDoubleRun(t *testing.T) {
	h := start(t)
	cj := h.cronJob("backup", func(cj *batchv1.CronJob) { cj.Spec.SuccessfulJobsHistoryLimit = ptr(int32(0)) })
	t1 := firstRun(t, cj)
	cur, jobs := h.syncAt(cj, t1)
	if len(jobs) != 1 {
		t.Fatalf("got jobs %v at the first start time, want one", names(jobs))
	}
	h.finish(jobs[0], true, t1.Add(30*time.Second))
	if cur, jobs = h.syncAt(cur, t1.Add(time.Minute)); len(jobs) != 0 {
		t.Fatalf("got jobs %v, want the finished one trimmed by the history limit", names(jobs))
	}
	// Back two hours, then forward again through every start time up to
	// and including t1: none of them runs again.
	for at := t1.Add(-2 * time.Hour); !at.After(t1); at = at.Add(5 * time.Minute) {
		if cur, jobs = h.syncAt(cur, at.Add(time.Second)); len(jobs) != 0 {
			t.Fatalf("at %s after stepping back: got jobs %v, want none (runs up to %s are done)", at, names(jobs), t1)
		}
	}
	if _, jobs = h.syncAt(cur, t1.Add(5*time.Minute+time.Second)); len(jobs) != 1 || jobs[0].Name != jobName(cj, t1.Add(5*time.Minute)) {
		t.Fatalf("got jobs %v, want the next start time after %s to run", names(jobs), t1)
	}
}

func TestClockJumpMeasuresWallAgainstMonotonic(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		wall, mono time.Duration
		want       time.Duration
	}{
		{15 * time.Second, 15 * time.Second, 0},
		{3*time.Hour + 15*time.Second, 15 * time.Second, 3 * time.Hour},
		{-2 * time.Hour, 15 * time.Second, -2*time.Hour - 15*time.Second},
	} {
		prev := clockReading{wall: base, mono: time.Minute}
		cur := clockReading{wall: base.Add(tc.wall), mono: time.Minute + tc.mono}
		if got := clockJump(prev, cur); got != tc.want {
			t.Errorf("wall +%s, monotonic +%s: got jump %s, want %s", tc.wall, tc.mono, got, tc.want)
		}
	}
}
