package pods

import (
	"context"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/agent/runtime"
)

// Native sidecars (Kubernetes 1.29+) are init containers with
// restartPolicy Always: each starts in its turn among the init
// containers and, once running with its startup probe passed, lets the
// next one start; it is restarted whenever it exits, and stopped after
// the app containers, in reverse order.

// isSidecar reports an init container with restartPolicy Always.
func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// syncSidecar keeps a sidecar going; true once it has started (then it
// never holds the init sequence back again, as upstream).
func (w *worker) syncSidecar(ctx context.Context, pod *corev1.Pod, c *corev1.Container) bool {
	st := w.ctr(c.Name)
	w.syncApp(ctx, pod, c, corev1.RestartPolicyAlways)
	if !st.sidecarUp && st.rs != nil && st.rs.State == runtime.StateRunning && st.probes.started() {
		st.sidecarUp = true
	}
	return st.sidecarUp
}

// syncSidecars looks after the sidecars once the init sequence is done.
func (w *worker) syncSidecars(ctx context.Context, pod *corev1.Pod) {
	for i := range pod.Spec.InitContainers {
		if c := &pod.Spec.InitContainers[i]; isSidecar(c) {
			w.syncSidecar(ctx, pod, c)
		}
	}
}

// sidecarStates lists the pod's sidecars' states, last declared first:
// the order they are stopped in.
func (w *worker) sidecarStates(pod *corev1.Pod) []*ctrState {
	var out []*ctrState
	for i := range pod.Spec.InitContainers {
		if isSidecar(&pod.Spec.InitContainers[i]) {
			out = append(out, w.ctr(pod.Spec.InitContainers[i].Name))
		}
	}
	slices.Reverse(out)
	return out
}

// stopSidecars stops the running sidecars of a pod whose app containers
// have finished for good (a Job's pod), so that it can complete.
func (w *worker) stopSidecars(ctx context.Context, pod *corev1.Pod) {
	stopped := false
	for _, st := range w.sidecarStates(pod) {
		if st.rs != nil && st.rs.State == runtime.StateRunning {
			w.event(pod, st.name, events.Normal, "Killing", "Stopping container %s", st.name)
			w.stop(ctx, pod, st)
			w.observe(ctx, st)
			stopped = true
		}
	}
	if stopped {
		w.report(pod)
	}
}

// stopInOrder stops the pod's app containers together, then its sidecars
// one by one in reverse order, all within the grace period g.
func (w *worker) stopInOrder(ctx context.Context, pod *corev1.Pod, g time.Duration) {
	start := time.Now()
	sidecars := w.sidecarStates(pod)
	var wg sync.WaitGroup
	for _, st := range w.ctrs {
		if !slices.Contains(sidecars, st) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.stopForDeletion(ctx, pod, st, g)
			}()
		}
	}
	wg.Wait()
	for _, st := range sidecars {
		left := g - time.Since(start)
		if g > 0 && left < minGrace {
			left = minGrace
		}
		w.stopForDeletion(ctx, pod, st, left)
	}
}

// stopForDeletion stops one container of a pod being deleted.
func (w *worker) stopForDeletion(ctx context.Context, pod *corev1.Pod, st *ctrState, g time.Duration) {
	if st.id == "" {
		return
	}
	if st.rs != nil && st.rs.State == runtime.StateRunning {
		w.event(pod, st.name, events.Normal, "Killing", "Stopping container %s", st.name)
	}
	if err := w.m.rt.StopContainer(ctx, st.id, w.preStop(ctx, pod, st, g)); err != nil {
		w.log.Warn("stop container", "container", st.id, "err", err)
	}
}
