package pods

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/events"
	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/mqtt"
)

// EventRecorder takes the events the kubelet would report about a pod
// (docs/EVENTS.md); *events.Recorder has it. It must not block.
type EventRecorder interface {
	Event(obj mqtt.EventObject, eventType, reason, message string)
}

var _ EventRecorder = (*events.Recorder)(nil)

type noEvents struct{}

func (noEvents) Event(mqtt.EventObject, string, string, string) {}

// event records an event about pod, or its container c when c is not "".
func (w *worker) event(pod *corev1.Pod, c, eventType, reason, format string, args ...any) {
	w.m.cfg.Events.Event(events.PodRef(pod, c), eventType, reason, fmt.Sprintf(format, args...))
}

// imagePresence is what a runtime may tell before a pull: whether the
// image is already on the node (Pulling/Pulled events, the airgap hint).
type imagePresence interface {
	ImagePresent(ctx context.Context, ref string) (bool, error)
}

// pullWanted says whether EnsureImage is about to pull, and whether the
// image is on the node. A runtime that cannot tell counts as holding it.
func (w *worker) pullWanted(ctx context.Context, c *corev1.Container) (pull, present bool) {
	present = true
	if ip, ok := w.m.rt.(imagePresence); ok {
		if p, err := ip.ImagePresent(ctx, c.Image); err == nil {
			present = p
		}
	}
	switch runtime.PullPolicy(c.ImagePullPolicy) {
	case runtime.PullAlways:
		return true, present
	case runtime.PullNever:
		return false, present
	}
	return !present, present
}

// pullEvents records the events of one EnsureImage, as the kubelet's.
func (w *worker) pullEvents(pod *corev1.Pod, c *corev1.Container, pull, present bool, img runtime.Image, took time.Duration, err error) {
	switch {
	case err == nil && !pull:
		w.event(pod, c.Name, events.Normal, "Pulled", "Container image %q already present on machine", c.Image)
	case err == nil:
		w.event(pod, c.Name, events.Normal, "Pulled", "Successfully pulled image %q in %s. Image size: %d bytes.",
			c.Image, took.Round(time.Millisecond), img.Size)
	case runtime.PullPolicy(c.ImagePullPolicy) == runtime.PullNever:
		w.event(pod, c.Name, events.Warning, "ErrImageNeverPull", "Container image %q is not present with pull policy of Never", c.Image)
	case runtime.PullPolicy(c.ImagePullPolicy) == runtime.PullAlways && present:
		w.event(pod, c.Name, events.Warning, "Failed", "Failed to pull image %q: imagePullPolicy is Always, so the image "+
			"must be pulled from its registry, and this node cannot pull it (an airgapped node?), although the image is "+
			"present on the node; set imagePullPolicy: IfNotPresent to run the local copy: %v", c.Image, err)
		w.event(pod, c.Name, events.Warning, "Failed", "Error: ErrImagePull")
	default:
		w.event(pod, c.Name, events.Warning, "Failed", "Failed to pull image %q: %v", c.Image, err)
		w.event(pod, c.Name, events.Warning, "Failed", "Error: ErrImagePull")
	}
}

// probeEvent records a failed probe with what it said.
func (w *worker) probeEvent(pod *corev1.Pod, c *corev1.Container, kind, output string) {
	msg := kind + " probe failed"
	if output = strings.TrimSpace(output); output != "" {
		msg += ": " + output
	}
	w.event(pod, c.Name, events.Warning, "Unhealthy", "%s", msg)
}

// exitEvents records what a container's exit says beyond its status.
func (w *worker) exitEvents(pod *corev1.Pod, st *ctrState) {
	if st.rs != nil && st.rs.OOMKilled {
		w.event(pod, st.name, events.Warning, "OOMKilled", "Container %s was OOM-killed (exit code %d): it used more than its memory limit",
			st.name, st.rs.ExitCode)
	}
}
