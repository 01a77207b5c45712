package pods

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/agent/runtime"
)

// sync moves the pod one step towards its spec: volumes, then init
// containers one at a time, then the app containers, then ephemeral ones.
func (w *worker) sync(ctx context.Context, pod *corev1.Pod) {
	if w.startTime.IsZero() {
		w.startTime = w.m.cfg.Clock.Now()
	}
	if w.terminal(pod) {
		w.stopSidecars(ctx, pod)
		return
	}
	if w.initFail || w.evictIfAsked(ctx, pod) || w.pastDeadline(ctx, pod) {
		return
	}
	// A volume that cannot be prepared (its ConfigMap is gone) holds back
	// new containers only; running ones keep being looked after.
	err := w.vols.prepare(ctx, pod)
	if err == nil {
		err = w.applyFSGroup(pod)
	}
	if err != nil && (w.volErr == nil || w.volErr.Error() != err.Error()) {
		w.log.Warn("prepare volumes", "err", err)
		w.event(pod, "", events.Warning, "FailedMount", "MountVolume.SetUp failed: %v", err)
	}
	w.volErr = err
	w.ensureSandbox(ctx, pod)
	w.ensurePodCgroup(ctx, pod)
	if w.initDone {
		w.syncSidecars(ctx, pod)
	} else if !w.syncInit(ctx, pod) {
		return
	}
	w.initDone = true
	for i := range pod.Spec.Containers {
		w.syncApp(ctx, pod, &pod.Spec.Containers[i], pod.Spec.RestartPolicy)
	}
	w.syncEphemeral(ctx, pod)
}

// terminal reports a pod whose phase can no longer change.
func (w *worker) terminal(pod *corev1.Pod) bool {
	if w.last == nil {
		return false
	}
	return w.last.Phase == corev1.PodSucceeded || w.last.Phase == corev1.PodFailed
}

// syncInit runs the init containers in order; true once all succeeded
// and every sidecar among them has started.
func (w *worker) syncInit(ctx context.Context, pod *corev1.Pod) bool {
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if isSidecar(c) {
			if !w.syncSidecar(ctx, pod, c) {
				return false
			}
			continue
		}
		st := w.ctr(c.Name)
		w.observe(ctx, st)
		if st.rs != nil && st.rs.State == runtime.StateExited && st.rs.ExitCode == 0 {
			continue
		}
		if st.rs != nil && st.rs.State == runtime.StateRunning {
			return false
		}
		if st.rs != nil && st.rs.State == runtime.StateExited {
			w.onExit(pod, st)
			if pod.Spec.RestartPolicy == corev1.RestartPolicyNever {
				w.initFail = true
				return false
			}
		}
		w.startWhenDue(ctx, pod, c, st)
		return false
	}
	return true
}

// syncApp keeps one container going per restart policy p (the pod's for
// app containers, Always for sidecars).
func (w *worker) syncApp(ctx context.Context, pod *corev1.Pod, c *corev1.Container, p corev1.RestartPolicy) {
	st := w.ctr(c.Name)
	w.observe(ctx, st)
	hash := specHash(c)
	if st.rs != nil && st.rs.State == runtime.StateRunning {
		if st.hash != hash {
			w.log.Info("container spec changed, restarting", "container", c.Name)
			w.event(pod, c.Name, events.Normal, "Killing", "Container %s definition changed, will be restarted", c.Name)
			w.stop(ctx, pod, st)
			w.observe(ctx, st)
			st.exitHandled = true // replaced, not crashed
			st.backoff, st.nextStart = 0, time.Time{}
			w.startWhenDue(ctx, pod, c, st)
			return
		}
		if !w.runProbes(ctx, pod, c, st) {
			w.stop(ctx, pod, st)
			w.observe(ctx, st)
		} else {
			return
		}
	}
	if st.rs != nil && st.rs.State == runtime.StateExited {
		w.onExit(pod, st)
		if !shouldRestart(p, st.rs.ExitCode) {
			return
		}
	}
	w.startWhenDue(ctx, pod, c, st)
}

// shouldRestart is the restartPolicy matrix for an exited container.
func shouldRestart(p corev1.RestartPolicy, exitCode int) bool {
	switch p {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return exitCode != 0
	default:
		return true
	}
}

// onExit records an exit once: it sets when the next start may happen.
func (w *worker) onExit(pod *corev1.Pod, st *ctrState) {
	if st.exitHandled {
		return
	}
	st.exitHandled = true
	w.exitEvents(pod, st)
	st.probes.reset()
	cfg := &w.m.cfg
	if st.rs.FinishedAt.Sub(st.rs.StartedAt) >= cfg.BackoffReset {
		st.backoff = 0
	}
	st.delay = st.backoff
	st.nextStart = cfg.Clock.Now().Add(st.backoff)
	st.backoff = nextBackoff(st.backoff, cfg.BackoffInitial, cfg.BackoffMax)
}

// nextBackoff doubles d from initial up to max; the first crash restarts
// at once (d == 0), as the kubelet does.
func nextBackoff(d, initial, max time.Duration) time.Duration {
	if d == 0 {
		return initial
	}
	if d*2 > max {
		return max
	}
	return d * 2
}

// startWhenDue starts the container's next attempt unless it is backing
// off, in which case it waits with reason CrashLoopBackOff.
func (w *worker) startWhenDue(ctx context.Context, pod *corev1.Pod, c *corev1.Container, st *ctrState) {
	now := w.m.cfg.Clock.Now()
	if now.Before(st.nextStart) {
		if st.rs != nil && st.rs.State == runtime.StateExited {
			st.waiting = "CrashLoopBackOff"
			st.message = fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)",
				st.delay, c.Name, pod.Name, pod.Namespace, pod.UID)
			if !st.crashBackOffTold.Equal(st.nextStart) {
				st.crashBackOffTold = st.nextStart
				w.event(pod, c.Name, events.Warning, "BackOff", "Back-off restarting failed container %s in pod %s_%s(%s)",
					c.Name, pod.Name, pod.Namespace, pod.UID)
			}
		}
		return
	}
	w.start(ctx, pod, c, st)
}

// stop runs the preStop hook and stops the current container with what
// is left of the pod's grace period.
func (w *worker) stop(ctx context.Context, pod *corev1.Pod, st *ctrState) {
	if err := w.m.rt.StopContainer(ctx, st.id, w.preStop(ctx, pod, st, grace(pod, w.m.cfg.DefaultGrace))); err != nil {
		w.log.Warn("stop container", "container", st.id, "err", err)
	}
}

// grace is the pod's termination grace period.
func grace(pod *corev1.Pod, def time.Duration) time.Duration {
	switch {
	case pod.DeletionGracePeriodSeconds != nil:
		return time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		return time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	}
	return def
}
