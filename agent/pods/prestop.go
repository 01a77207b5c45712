package pods

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/agent/runtime"
)

// minGrace is what SIGTERM always gets after a preStop hook, as the
// kubelet's minimumGracePeriodInSeconds.
const minGrace = 2 * time.Second

// preStop runs the container's preStop hook (exec, httpGet or sleep)
// within the grace period g and returns what is left of it for SIGTERM,
// as the kubelet: the hook's time counts against the grace period. A
// failed hook records FailedPreStopHook; the container is stopped anyway.
func (w *worker) preStop(ctx context.Context, pod *corev1.Pod, st *ctrState, g time.Duration) time.Duration {
	c := podContainer(pod, st.name)
	if c == nil || c.Lifecycle == nil || c.Lifecycle.PreStop == nil || g <= 0 ||
		st.rs == nil || st.rs.State != runtime.StateRunning {
		return g
	}
	start := time.Now()
	hctx, cancel := context.WithTimeout(ctx, g)
	defer cancel()
	if kind, err := w.runHook(hctx, c, st.id, c.Lifecycle.PreStop); err != nil {
		w.event(pod, c.Name, events.Warning, "FailedPreStopHook", "%s lifecycle hook for Container %q in Pod %q failed - error: %v",
			kind, c.Name, fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID), err)
	}
	return max(g-time.Since(start), minGrace)
}

// runHook runs one lifecycle handler; kind names it for the event.
func (w *worker) runHook(ctx context.Context, c *corev1.Container, id string, h *corev1.LifecycleHandler) (kind string, err error) {
	switch {
	case h.Exec != nil:
		res, err := w.m.rt.Exec(ctx, id, h.Exec.Command)
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("command %q exited with %d, message: %q", strings.Join(h.Exec.Command, " "),
				res.ExitCode, strings.TrimSpace(string(res.Stdout)+string(res.Stderr)))
		}
		return "Exec", err
	case h.HTTPGet != nil:
		pod, _ := w.snapshot()
		if ok, out := httpProbe(ctx, c, h.HTTPGet, w.probeAddr(pod)); !ok {
			return "HTTP", fmt.Errorf("%s", out)
		}
		return "HTTP", nil
	case h.Sleep != nil:
		select {
		case <-time.After(time.Duration(h.Sleep.Seconds) * time.Second):
		case <-ctx.Done():
		}
		return "Sleep", nil
	}
	return "TCPSocket", fmt.Errorf("tcpSocket lifecycle hooks are deprecated and not supported")
}
