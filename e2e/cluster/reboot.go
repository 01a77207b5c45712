package cluster

import (
	"testing"
	"time"
)

// Kill ends the agent with SIGKILL, as a power cut does, and waits for it.
func (a *Agent) Kill(t testing.TB) {
	t.Helper()
	_ = a.cmd.Process.Kill()
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("the agent still ran 10s after SIGKILL")
	}
}
