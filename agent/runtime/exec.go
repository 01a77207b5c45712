package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"syscall"
	"time"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/cio"
	"github.com/containerd/containerd/errdefs"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// execFIFODir holds the FIFOs of exec'd processes' output: under /run,
// which containerd's shim and this process see alike (a systemd unit's
// PrivateTmp would hide a FIFO in /tmp from the shim).
const execFIFODir = "/run/containerd/fifo"

// ioDrainWait bounds the wait for an exec'd process's output after it exited.
const ioDrainWait = 5 * time.Second

// Exec implements Runtime. The command runs with the container's user,
// environment and working directory, without a terminal or stdin.
func (c *Containerd) Exec(ctx context.Context, id string, cmd []string) (ExecResult, error) {
	if len(cmd) == 0 {
		return ExecResult{}, fmt.Errorf("exec in %s: empty command", id)
	}
	task, pspec, err := c.execTarget(ctx, id)
	if err != nil {
		return ExecResult{}, err
	}
	pspec.Args, pspec.Terminal = cmd, false
	stdout, stderr := &cappedBuffer{}, &cappedBuffer{}
	proc, err := task.Exec(ctx, execID(), pspec, cio.NewCreator(cio.WithStreams(nil, stdout, stderr), cio.WithFIFODir(execFIFODir)))
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec in %s: %w", id, err)
	}
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	defer proc.Delete(bg, containerd.WithProcessKill)
	code, err := runProcess(ctx, bg, proc, nil, ioDrainWait)
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec in %s: %w", id, err)
	}
	return ExecResult{ExitCode: code, Stdout: stdout.b, Stderr: stderr.b}, nil
}

// execTarget returns the container's task and a copy of its process spec.
func (c *Containerd) execTarget(ctx context.Context, id string) (containerd.Task, *specs.Process, error) {
	ctr, err := c.load(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	task, err := ctr.Task(ctx, nil)
	if errdefs.IsNotFound(err) {
		return nil, nil, fmt.Errorf("exec in %s: container is not running", id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("exec in %s: load task: %w", id, err)
	}
	spec, err := ctr.Spec(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("exec in %s: spec: %w", id, err)
	}
	pspec := *spec.Process
	return task, &pspec, nil
}

// runProcess starts proc (closing started, when not nil, once it runs),
// waits for it to exit and then for its output to drain, at most
// drainLimit when that is not 0 (otherwise until ctx ends: the output of
// a stream reaches the client before the exit code, however slowly it
// reads). When ctx ends first the process is killed.
func runProcess(ctx, bg context.Context, proc containerd.Process, started chan<- struct{}, drainLimit time.Duration) (int, error) {
	exited, err := proc.Wait(bg)
	if err != nil {
		return 0, fmt.Errorf("wait: %w", err)
	}
	if err := proc.Start(ctx); err != nil {
		return 0, fmt.Errorf("start: %w", err)
	}
	if started != nil {
		close(started)
	}
	var es containerd.ExitStatus
	select {
	case es = <-exited:
	case <-ctx.Done():
		_ = proc.Kill(bg, syscall.SIGKILL)
		<-exited
		proc.IO().Cancel()
		return 0, ctx.Err()
	}
	code, _, err := es.Result()
	if err != nil {
		return 0, fmt.Errorf("exit status: %w", err)
	}
	return int(code), drain(ctx, proc.IO(), drainLimit)
}

// drain waits until pio has copied all the output, at most limit when that
// is not 0, or until ctx ends.
func drain(ctx context.Context, pio cio.IO, limit time.Duration) error {
	drained := make(chan struct{})
	go func() { pio.Wait(); close(drained) }()
	var timeout <-chan time.Time
	if limit > 0 {
		timer := time.NewTimer(limit)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case <-drained:
		return nil
	case <-timeout:
		return fmt.Errorf("output not drained %s after exit (a child still holds it?)", limit)
	case <-ctx.Done():
		pio.Cancel()
		return ctx.Err()
	}
}

func execID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "exec-" + hex.EncodeToString(b[:])
}

// cappedBuffer keeps the first MaxExecOutput bytes written to it and
// swallows the rest, so a chatty probe cannot grow the agent.
type cappedBuffer struct{ b []byte }

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := MaxExecOutput - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
