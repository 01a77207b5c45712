package runtime

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/errdefs"
)

// killWait bounds the wait for a SIGKILLed container to be reaped.
const killWait = 10 * time.Second

// StopContainer implements Runtime. The first signal is the image's stop
// signal (SIGTERM unless the image says otherwise).
func (c *Containerd) StopContainer(ctx context.Context, id string, grace time.Duration) error {
	ctr, err := c.load(ctx, id)
	if err != nil {
		return err
	}
	task, err := runningTask(ctx, ctr)
	if task == nil || err != nil {
		return err
	}
	waitCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	exited, err := task.Wait(waitCtx)
	if err != nil {
		return fmt.Errorf("stop %s: wait: %w", id, err)
	}
	if grace > 0 {
		sig, err := containerd.GetStopSignal(ctx, ctr, syscall.SIGTERM)
		if err != nil {
			return fmt.Errorf("stop %s: stop signal: %w", id, err)
		}
		if done, err := c.signalAndWait(ctx, task, sig, exited, grace); done || err != nil {
			return err
		}
		c.log.Info("grace period over, killing container", "container", id, "grace", grace)
	}
	_, err = c.signalAndWait(ctx, task, syscall.SIGKILL, exited, killWait)
	return err
}

// runningTask returns the container's task, or nil when it has none or it
// has exited.
func runningTask(ctx context.Context, ctr containerd.Container) (containerd.Task, error) {
	task, err := ctr.Task(ctx, nil)
	if errdefs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stop %s: load task: %w", ctr.ID(), err)
	}
	st, err := task.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("stop %s: task status: %w", ctr.ID(), err)
	}
	if st.Status == containerd.Stopped {
		return nil, nil
	}
	return task, nil
}

// signalAndWait sends sig and reports whether the task exited within wait.
// A SIGKILL goes to every process of the container.
func (c *Containerd) signalAndWait(ctx context.Context, task containerd.Task, sig syscall.Signal, exited <-chan containerd.ExitStatus, wait time.Duration) (bool, error) {
	var opts []containerd.KillOpts
	if sig == syscall.SIGKILL {
		opts = append(opts, containerd.WithKillAll)
	}
	if err := task.Kill(ctx, sig, opts...); err != nil && !errdefs.IsNotFound(err) {
		return false, fmt.Errorf("stop %s: send %s: %w", task.ID(), sig, err)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-exited:
		return true, nil
	case <-ctx.Done():
		return false, fmt.Errorf("stop %s: %w", task.ID(), ctx.Err())
	case <-t.C:
		if sig == syscall.SIGKILL {
			return false, fmt.Errorf("stop %s: still running %s after SIGKILL", task.ID(), wait)
		}
		return false, nil
	}
}
