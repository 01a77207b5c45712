package pods

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
)

// postStartTimeout bounds a postStart hook, which holds the pod's worker
// (the kubelet waits for it too before the container counts as running).
const postStartTimeout = 2 * time.Minute

// postStart runs the container's postStart hook right after it started.
// A failed hook records FailedPostStartHook and kills the container,
// which is then restarted per the restart policy, as the kubelet does.
func (w *worker) postStart(ctx context.Context, pod *corev1.Pod, c *corev1.Container, st *ctrState) {
	if c.Lifecycle == nil || c.Lifecycle.PostStart == nil {
		return
	}
	hctx, cancel := context.WithTimeout(ctx, postStartTimeout)
	defer cancel()
	kind, err := w.runHook(hctx, c, st.id, c.Lifecycle.PostStart)
	if err == nil {
		return
	}
	w.log.Info("postStart hook failed, killing the container", "container", c.Name, "err", err)
	w.event(pod, c.Name, events.Warning, "FailedPostStartHook", "%s lifecycle hook for Container %q in Pod %q failed - error: %v",
		kind, c.Name, fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID), err)
	w.event(pod, c.Name, events.Normal, "Killing", "FailedPostStartHook")
	if err := w.m.rt.StopContainer(ctx, st.id, grace(pod, w.m.cfg.DefaultGrace)); err != nil {
		w.log.Warn("stop container", "container", st.id, "err", err)
	}
	w.observe(ctx, st)
}
