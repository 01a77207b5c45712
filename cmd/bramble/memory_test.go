package main

import (
	"runtime/debug"
	"testing"
)

func TestTuneAgentMemory(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tt := range []struct {
		env  string
		want int
	}{
		{"", agentGCPercent},
		{"100", 100}, // GOGC set: left as the runtime set it
		{"off", 100},
	} {
		debug.SetGCPercent(100)
		t.Setenv("GOGC", tt.env)
		tuneAgentMemory()
		if got := debug.SetGCPercent(100); got != tt.want {
			t.Errorf("GOGC=%q: got GC percent %d, want %d", tt.env, got, tt.want)
		}
	}
}
