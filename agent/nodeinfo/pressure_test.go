package nodeinfo

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		in   string
		want Threshold
		err  bool
	}{
		{in: "100Mi", want: Threshold{Bytes: 100 << 20}},
		{in: "5%", want: Threshold{Percent: 5}},
		{in: " 12.5% ", want: Threshold{Percent: 12.5}},
		{in: "101%", err: true},
		{in: "-1%", err: true},
		{in: "-1Mi", err: true},
		{in: "lots", err: true},
	}
	for _, tt := range tests {
		got, err := ParseThreshold("--eviction-memory", tt.in)
		if tt.err {
			if err == nil || !strings.HasPrefix(err.Error(), "--eviction-memory: ") {
				t.Errorf("ParseThreshold(%q): got %v, want an error naming the flag", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseThreshold(%q): got %+v, %v, want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestPressureConditions(t *testing.T) {
	var th Thresholds
	th.setDefaults()
	const gi = 1 << 30
	tests := []struct {
		name string
		got  corev1.NodeCondition
		want corev1.ConditionStatus
	}{
		{"memory plenty", memoryPressure(2*gi, 4*gi, th.MemoryAvailable), corev1.ConditionFalse},
		{"memory under 100Mi", memoryPressure(99<<20, 4*gi, th.MemoryAvailable), corev1.ConditionTrue},
		{"memory exactly 100Mi", memoryPressure(100<<20, 4*gi, th.MemoryAvailable), corev1.ConditionFalse},
		{"memory 5% of 24Gi", memoryPressure(1*gi, 24*gi, Threshold{Percent: 5}), corev1.ConditionTrue},
		{"memory 5% of 512Mi", memoryPressure(30<<20, 512<<20, Threshold{Percent: 5}), corev1.ConditionFalse},
		{"disk 50% free", diskPressure(16*gi, 32*gi, 500, 1000, th.DiskFree, th.InodesFree), corev1.ConditionFalse},
		{"disk 9% free", diskPressure(9*gi, 100*gi, 500, 1000, th.DiskFree, th.InodesFree), corev1.ConditionTrue},
		{"inodes 4% free", diskPressure(50*gi, 100*gi, 40, 1000, th.DiskFree, th.InodesFree), corev1.ConditionTrue},
		{"no inodes (btrfs)", diskPressure(50*gi, 100*gi, 0, 0, th.DiskFree, th.InodesFree), corev1.ConditionFalse},
		{"pids few used", pidPressure(300, 32768, th.PIDsFree), corev1.ConditionFalse},
		{"pids near pid_max", pidPressure(31500, 32768, th.PIDsFree), corev1.ConditionTrue},
		{"pids over pid_max", pidPressure(40000, 32768, th.PIDsFree), corev1.ConditionTrue},
	}
	for _, tt := range tests {
		if tt.got.Status != tt.want {
			t.Errorf("%s: got %s (%s), want %s", tt.name, tt.got.Status, tt.got.Message, tt.want)
		}
		wantReason := "AgentHasNo" + string(tt.got.Type)
		if tt.want == corev1.ConditionTrue {
			wantReason = "AgentHas" + string(tt.got.Type)
		}
		if tt.got.Reason != wantReason || tt.got.Message == "" {
			t.Errorf("%s: got reason %q message %q, want reason %q and a message", tt.name, tt.got.Reason, tt.got.Message, wantReason)
		}
	}
}
