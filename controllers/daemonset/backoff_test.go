package daemonset

import (
	"testing"
	"time"
)

func TestFailureBackoff(t *testing.T) {
	b := newFailureBackoff()
	t0 := time.Unix(1000, 0)
	base, most := time.Second, 4*time.Second
	steps := []struct {
		at   time.Duration
		want time.Duration
	}{
		{0, 0}, // first failure: replaced at once, next waits 1s
		{500 * time.Millisecond, 500 * time.Millisecond},
		{time.Second, 0}, // replaced; next waits 2s
		{2 * time.Second, time.Second},
		{3 * time.Second, 0}, // replaced; next waits 4s
		{7 * time.Second, 0}, // replaced; capped at 4s
		{10 * time.Second, time.Second},
		{30 * time.Second, 0}, // quiet for over 2x the cap: afresh
		{30*time.Second + 500*time.Millisecond, 500 * time.Millisecond},
	}
	for _, s := range steps {
		if got := b.next("default/ds/pi", t0.Add(s.at), base, most); got != s.want {
			t.Errorf("at +%v: got wait %v, want %v", s.at, got, s.want)
		}
	}
	if got := b.next("default/other/pi", t0, base, most); got != 0 {
		t.Errorf("another DaemonSet's first failure waits %v, want 0", got)
	}
	b.forget("default/ds")
	if got := b.next("default/ds/pi", t0.Add(30*time.Second+600*time.Millisecond), base, most); got != 0 {
		t.Errorf("after forget: got wait %v, want 0", got)
	}
}
