package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// agentGCPercent is the agent's GOGC unless the environment sets one. An
// idle agent with 10 pods keeps ~3.5 MiB of live heap and allocates ~0.4
// MiB/s (pod workers polling containerd); at Go's default of 100 its heap
// grows to twice the live heap between collections, at 25 to 1.25 times,
// which keeps its private memory within budget for a collection every
// few seconds.
const agentGCPercent = 25

// tuneAgentMemory sets the agent process's garbage collector target,
// unless GOGC is set.
func tuneAgentMemory() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(agentGCPercent)
	}
}

// stopMemoryProfiling turns off the runtime's sampling of allocations:
// bramble serves no memory profiles, and the samples cost a 1.4 MiB hash
// table, touched a page here and there, plus a record per allocation site,
// growing for as long as the process runs.
func stopMemoryProfiling() {
	runtime.MemProfileRate = 0
}
