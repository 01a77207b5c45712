package job

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
)

func TestWantActive(t *testing.T) {
	cases := []struct {
		name                    string
		completions, par        *int32
		succeeded, active, want int32
	}{
		{name: "fresh", completions: i32(3), par: i32(2), want: 2},
		{name: "one left", completions: i32(3), par: i32(2), succeeded: 2, active: 2, want: 1},
		{name: "done", completions: i32(3), par: i32(2), succeeded: 3, want: 0},
		{name: "over-done", completions: i32(3), par: i32(2), succeeded: 5, want: 0},
		{name: "parallelism nil", completions: i32(3), want: 1},
		{name: "work queue fresh", par: i32(4), want: 4},
		{name: "work queue after a success", par: i32(4), succeeded: 1, active: 3, want: 3},
		{name: "parallelism zero", completions: i32(3), par: i32(0), want: 0},
	}
	for _, tc := range cases {
		job := &batchv1.Job{Spec: batchv1.JobSpec{Completions: tc.completions, Parallelism: tc.par}}
		if got := wantActive(job, &batchv1.JobStatus{Succeeded: tc.succeeded}, tc.active); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestRetryWaitDoublesAndCaps(t *testing.T) {
	c := &Controller{BackoffBase: 10 * time.Second, BackoffMax: 6 * time.Minute}
	now := time.Unix(1000, 0)
	cases := []struct {
		failed int32
		want   time.Duration
	}{{0, 0}, {1, 10 * time.Second}, {2, 20 * time.Second}, {3, 40 * time.Second}, {6, 320 * time.Second}, {7, 6 * time.Minute}, {30, 6 * time.Minute}}
	for _, tc := range cases {
		got := c.retryWait(&batchv1.JobStatus{Failed: tc.failed}, podCounts{lastFailure: now}, now)
		if got != tc.want {
			t.Errorf("after %d failures: got %v, want %v", tc.failed, got, tc.want)
		}
	}
}

func TestPastRestartLimit(t *testing.T) {
	cases := []struct {
		restarts, limit int32
		want            bool
	}{{0, 0, false}, {1, 0, true}, {1, 2, false}, {2, 2, true}, {5, 6, false}}
	for _, tc := range cases {
		if got := pastRestartLimit(tc.restarts, tc.limit); got != tc.want {
			t.Errorf("restarts %d limit %d: got %v, want %v", tc.restarts, tc.limit, got, tc.want)
		}
	}
}
