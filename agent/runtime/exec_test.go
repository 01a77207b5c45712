package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestExec(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx := context.Background()
	err := rt.RunContainer(ctx, ContainerSpec{
		ID: "box", Image: busybox, Command: []string{"sleep", "60"}, WorkingDir: "/tmp",
		Env: []EnvVar{{Name: "PROBE", Value: "yes"}},
	})
	if err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	res, err := rt.Exec(ctx, "box", []string{"sh", "-c", `echo "out $PROBE $(pwd)"; echo err >&2; exit 7`})
	if err != nil {
		t.Fatalf("Exec: %v", err)
	}
	if res.ExitCode != 7 || string(res.Stdout) != "out yes /tmp\n" || string(res.Stderr) != "err\n" {
		t.Errorf("Exec: got code %d stdout %q stderr %q, want 7 %q %q", res.ExitCode, res.Stdout, res.Stderr, "out yes /tmp\n", "err\n")
	}
	res, err = rt.Exec(ctx, "box", []string{"sh", "-c", "yes | head -c 200000"})
	if err != nil {
		t.Fatalf("Exec chatty: %v", err)
	}
	if res.ExitCode != 0 || len(res.Stdout) != MaxExecOutput {
		t.Errorf("Exec chatty: got code %d and %d bytes, want 0 and %d", res.ExitCode, len(res.Stdout), MaxExecOutput)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := rt.Exec(short, "box", []string{"sleep", "60"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Exec past its deadline: got %v, want context.DeadlineExceeded", err)
	}
	if _, err := rt.Exec(ctx, "box", []string{"/no/such/probe"}); err == nil {
		t.Errorf("Exec of a missing binary: got nil error, want one")
	}
	if err := rt.StopContainer(ctx, "box", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Exec(ctx, "box", []string{"true"}); err == nil || !strings.Contains(err.Error(), "box") {
		t.Errorf("Exec in a stopped container: got %v, want an error naming it", err)
	}
}
