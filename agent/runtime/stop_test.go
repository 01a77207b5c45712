package runtime

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestStopHonoursSIGTERM(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx := context.Background()
	logPath := filepath.Join(t.TempDir(), "0.log")
	script := `trap 'echo got TERM; exit 3' TERM; echo ready; while true; do sleep 0.05; done`
	if err := rt.RunContainer(ctx, ContainerSpec{ID: "polite", Image: busybox, LogPath: logPath, Command: []string{"sh", "-c", script}}); err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	waitFile(t, logPath, "ready", 10*time.Second) // the trap is set
	if err := rt.StopContainer(ctx, "polite", 30*time.Second); err != nil {
		t.Fatalf("StopContainer: %v", err)
	}
	st, err := rt.ContainerStatus(ctx, "polite")
	if err != nil {
		t.Fatal(err)
	}
	if st.State != StateExited || st.ExitCode != 3 {
		t.Errorf("after SIGTERM: got %s exit %d, want exited 3 (its trap ran)", st.State, st.ExitCode)
	}
	waitFile(t, logPath, "stdout F got TERM", 5*time.Second)
	if err := rt.StopContainer(ctx, "polite", time.Second); err != nil {
		t.Errorf("stopping a stopped container: got %v, want nil", err)
	}
}

func TestStopKillsAfterGrace(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx := context.Background()
	logPath := filepath.Join(t.TempDir(), "0.log")
	script := `trap '' TERM; echo ready; while true; do sleep 0.05; done`
	if err := rt.RunContainer(ctx, ContainerSpec{ID: "stubborn", Image: busybox, LogPath: logPath, Command: []string{"sh", "-c", script}}); err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	waitFile(t, logPath, "ready", 10*time.Second)
	grace := 700 * time.Millisecond
	start := time.Now()
	if err := rt.StopContainer(ctx, "stubborn", grace); err != nil {
		t.Fatalf("StopContainer: %v", err)
	}
	if took := time.Since(start); took < grace {
		t.Errorf("stop returned after %s, want at least the %s grace period", took, grace)
	}
	st, err := rt.ContainerStatus(ctx, "stubborn")
	if err != nil {
		t.Fatal(err)
	}
	if st.State != StateExited || st.ExitCode != 137 || st.OOMKilled {
		t.Errorf("after grace: got %s exit %d oomKilled %v, want exited 137 false (SIGKILL)", st.State, st.ExitCode, st.OOMKilled)
	}
}
