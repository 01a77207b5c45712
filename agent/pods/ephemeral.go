package pods

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/agent/runtime"
)

// Ephemeral containers (kubectl debug) join a running pod: the API adds
// them to spec.ephemeralContainers and the worker starts each once, in
// the pod's sandbox like its other containers, and in the PID namespace
// of its targetContainerName when it names one. They are never restarted
// or probed, hold no resources of their own, and end with the pod.

// asContainer sees an ephemeral container as a regular one: the two
// share their fields.
func asContainer(ec *corev1.EphemeralContainer) *corev1.Container {
	return (*corev1.Container)(&ec.EphemeralContainerCommon)
}

// syncEphemeral starts the ephemeral containers not started yet. One
// that could not start (its image cannot be pulled) is tried again with
// the usual back-off; one that ran is left as it ended.
func (w *worker) syncEphemeral(ctx context.Context, pod *corev1.Pod) {
	for i := range pod.Spec.EphemeralContainers {
		c := asContainer(&pod.Spec.EphemeralContainers[i])
		st := w.ctr(c.Name)
		w.observe(ctx, st)
		switch {
		case st.nextAttempt > 0: // started once: never again
		case w.m.cfg.RefuseEphemeral:
			w.refuseEphemeral(pod, st)
		default:
			w.startWhenDue(ctx, pod, c, st)
		}
	}
}

// refuseEphemeral leaves st waiting on a node that refuses exec, with
// one event saying why.
func (w *worker) refuseEphemeral(pod *corev1.Pod, st *ctrState) {
	if st.waiting == "CreateContainerConfigError" {
		return
	}
	st.waiting = "CreateContainerConfigError"
	st.message = fmt.Sprintf("ephemeral containers are refused on node %q (--disable-exec)", w.m.cfg.NodeName)
	w.event(pod, st.name, events.Warning, "Failed", "Error: %s", st.message)
}

// ephemeralStatuses reports the ephemeral containers; they are never
// ready (nothing routes traffic to them) and never restart.
func (w *worker) ephemeralStatuses(pod *corev1.Pod) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for i := range pod.Spec.EphemeralContainers {
		cs := w.containerStatus(asContainer(&pod.Spec.EphemeralContainers[i]), false)
		cs.Ready = false
		out = append(out, cs)
	}
	return out
}

// ephemeralTarget is the targetContainerName of the ephemeral container
// named name, "" for other containers.
func ephemeralTarget(pod *corev1.Pod, name string) string {
	for i := range pod.Spec.EphemeralContainers {
		if ec := &pod.Spec.EphemeralContainers[i]; ec.Name == name {
			return ec.TargetContainerName
		}
	}
	return ""
}

// joinTarget puts sec in the PID namespace of the running container
// target, so that the debugger sees its processes. A target that is not
// running holds the start back (CreateContainerConfigError, retried).
func (w *worker) joinTarget(sec runtime.Security, target string) (runtime.Security, error) {
	st := w.ctrs[target]
	if st == nil || st.rs == nil || st.rs.State != runtime.StateRunning || st.rs.Pid == 0 {
		return sec, fmt.Errorf("%w: target container %q is not running", errConfig, target)
	}
	sec.PIDNamespace = fmt.Sprintf("/proc/%d/ns/pid", st.rs.Pid)
	return sec, nil
}
