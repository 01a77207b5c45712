package hpa

import (
	"strings"
	"testing"
)

func pods(n int, usage, request int64) []podSample {
	out := make([]podSample, n)
	for i := range out {
		out[i] = podSample{usage: usage, hasUsage: true, request: request, ready: true}
	}
	return out
}

func TestReplicasFor(t *testing.T) {
	cpu50 := target{utilization: 50, ignoreUnready: true}
	cases := []struct {
		name    string
		current int32
		pods    []podSample
		t       target
		want    int32
		util    int32
	}{
		{"on target", 3, pods(3, 100, 200), cpu50, 3, 50},
		{"within tolerance up", 3, pods(3, 109, 200), cpu50, 3, 54},
		{"within tolerance down", 3, pods(3, 91, 200), cpu50, 3, 45},
		{"just beyond tolerance", 3, pods(3, 112, 200), cpu50, 4, 56},
		{"burning", 1, pods(1, 200, 200), cpu50, 2, 100},
		{"burning at 200m of 100m", 1, pods(1, 200, 100), cpu50, 4, 200},
		{"idle", 4, pods(4, 10, 200), cpu50, 1, 5},
		{"average value", 2, pods(2, 300, 0), target{averageValue: 100}, 6, 0},
		{"memory average value down", 4, pods(4, 10<<20, 0), target{averageValue: 40 << 20}, 1, 0},
		// One pod without metrics on a scale-up counts as using nothing:
		// (200+200+0)/(3*200) = 66 % of 50 % -> ceil(1.33*3) = 4.
		{"missing on scale-up", 3, append(pods(2, 200, 200), podSample{request: 200, ready: true}), cpu50, 4, 100},
		// On a scale-down it counts as using its target: (20+20+100)/600
		// = 23 % -> ratio 0.46 -> ceil(1.4) = 2.
		{"missing on scale-down", 3, append(pods(2, 20, 200), podSample{request: 200, ready: true}), cpu50, 2, 10},
		// Assuming the missing pod at target turns a tiny scale-down into
		// none at all.
		{"missing flips direction", 2, append(pods(1, 80, 200), podSample{request: 200, ready: true}), cpu50, 2, 40},
		// A not-ready pod with high CPU (starting up) counts as zero on a
		// scale-up: (200+0)/400 = 50 % -> on target.
		{"unready on scale-up", 2, append(pods(1, 200, 200), podSample{usage: 400, hasUsage: true, request: 200}), cpu50, 2, 100},
		{"unready ignored for memory", 2, append(pods(1, 200, 200), podSample{usage: 400, hasUsage: true, request: 200}), target{utilization: 50}, 6, 150},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := replicasFor(tc.current, tc.pods, tc.t)
			if err != nil {
				t.Fatal(err)
			}
			if got.replicas != tc.want || got.utilization != tc.util {
				t.Errorf("got %d replicas at %d %%, want %d at %d %%", got.replicas, got.utilization, tc.want, tc.util)
			}
		})
	}
}

func TestReplicasForErrors(t *testing.T) {
	if _, err := replicasFor(1, []podSample{{request: 100}}, target{utilization: 50}); err == nil || !strings.Contains(err.Error(), "no pod of the 1 has metrics") {
		t.Errorf("no metrics at all: got %v", err)
	}
	if _, err := replicasFor(1, pods(1, 100, 0), target{utilization: 50}); err == nil || !strings.Contains(err.Error(), "missing request") {
		t.Errorf("utilization without requests: got %v", err)
	}
}
