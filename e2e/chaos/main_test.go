//go:build chaos

// Package chaos is the adversarial test of issue 14 made repeatable: it
// drives the real bramble binary through kill -9 under load, kill -9 during
// compaction and snapshots, full disks, packet loss and link cuts between
// an agent in a network namespace and the server, MQTT floods and forged
// publishes, malformed API input and join abuse. Each fault prints one
// figure line ("chaos: ...") and fails on any acknowledged write lost or
// any difference between the server's and a node's state.
//
//	go test -tags chaos -count=1 -v ./e2e/chaos/
//
// runs the short version (CI's); BRAMBLE_CHAOS_LONG=1 runs the long one
// (more rounds, more writers, longer loss): see docs/CHAOS.md.
package chaos

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bramble-chaos-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Without the race detector: the faults need a server at its real
	// speed (the race-detecting e2e suite covers the same code paths).
	if err := cluster.Build(dir, false); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// long reports whether BRAMBLE_CHAOS_LONG asks for the long version.
func long() bool { return os.Getenv("BRAMBLE_CHAOS_LONG") == "1" }

// pick is short in the short version, lng in the long one.
func pick[T any](short, lng T) T {
	if long() {
		return lng
	}
	return short
}

var figureMu sync.Mutex

// figure prints a fault's one figure line on standard output (go test
// shows it with -v, and for a package run alone).
func figure(format string, args ...any) {
	figureMu.Lock()
	defer figureMu.Unlock()
	fmt.Println("chaos: " + fmt.Sprintf(format, args...))
}
