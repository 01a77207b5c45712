package hpa

import (
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

func TestStabilizeScaleDownWindow(t *testing.T) {
	b := defaultBehavior()
	w := int32(30)
	b.ScaleDown.StabilizationWindowSeconds = &w
	h := &history{}
	t0 := time.Unix(0, 0)
	steps := []struct {
		after   time.Duration
		current int32
		desired int32
		want    int32
	}{
		{0, 3, 3, 3},
		{10 * time.Second, 3, 1, 3}, // 3 was recommended 10 s ago: held
		{25 * time.Second, 3, 1, 3},
		{31 * time.Second, 3, 1, 1}, // the 3 left the window
		{35 * time.Second, 1, 4, 4}, // no scale-up window: at once
	}
	for i, s := range steps {
		if got := h.stabilize(t0.Add(s.after), s.current, s.desired, b); got != s.want {
			t.Errorf("step %d (t=%s, current %d, desired %d): got %d, want %d", i, s.after, s.current, s.desired, got, s.want)
		}
	}
}

func TestScaleUpPolicies(t *testing.T) {
	b := defaultBehavior() // max of +4 pods and +100 % per 15 s
	h := &history{}
	now := time.Unix(100, 0)
	if got, limited := h.limit(now, 1, 10, b); got != 5 || !limited {
		t.Errorf("1 -> 10: got %d (limited %v), want 5 (1+4 beats 1*2)", got, limited)
	}
	h.record(now, 1, 5)
	// 5 s later the period started at 1: still at most 5.
	if got, _ := h.limit(now.Add(5*time.Second), 5, 10, b); got != 5 {
		t.Errorf("5 s after 1 -> 5: got %d, want 5", got)
	}
	if got, _ := h.limit(now.Add(16*time.Second), 5, 20, b); got != 10 {
		t.Errorf("16 s after: got %d, want 10 (5*2 beats 5+4)", got)
	}
	minPolicy := autoscalingv2.MinChangePolicySelect
	b.ScaleUp.SelectPolicy = &minPolicy
	if got, _ := (&history{}).limit(now, 10, 100, b); got != 14 {
		t.Errorf("select Min from 10: got %d, want 14", got)
	}
	disabled := autoscalingv2.DisabledPolicySelect
	b.ScaleUp.SelectPolicy = &disabled
	if got, limited := (&history{}).limit(now, 2, 5, b); got != 2 || !limited {
		t.Errorf("scale-up disabled: got %d (limited %v), want 2", got, limited)
	}
}

func TestScaleDownPolicies(t *testing.T) {
	b := defaultBehavior()
	b.ScaleDown.Policies = []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 60}}
	h := &history{}
	now := time.Unix(100, 0)
	if got, _ := h.limit(now, 5, 1, b); got != 4 {
		t.Errorf("5 -> 1 by one pod a minute: got %d, want 4", got)
	}
	h.record(now, 5, 4)
	if got, _ := h.limit(now.Add(30*time.Second), 4, 1, b); got != 4 {
		t.Errorf("30 s later: got %d, want 4", got)
	}
	if got, _ := h.limit(now.Add(61*time.Second), 4, 1, b); got != 3 {
		t.Errorf("61 s later: got %d, want 3", got)
	}
}
