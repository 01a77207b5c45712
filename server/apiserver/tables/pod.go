package tables

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(podPrinters) }

func podPrinters() {
	register("Pod", podCells,
		"Name", "string", "Ready", "string", "Status", "string", "Restarts", "string", "Age", "string",
		"IP+", "string", "Node+", "string", "Nominated Node+", "string", "Readiness Gates+", "string")
	columnHelp["Ready"] = "Ready containers out of all containers."
	columnHelp["Status"] = "The state of the object as a person reads it."
	columnHelp["Restarts"] = "Container restarts, and how long ago the last one was."
	columnHelp["IP"] = "The pod's IP address."
	columnHelp["Node"] = "The node the pod is bound to."
}

func podCells(obj api.Object, now time.Time) []any {
	p := obj.(*corev1.Pod)
	s := PodSummary(p)
	restarts := strconv.Itoa(s.Restarts)
	if s.Restarts > 0 && !s.LastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.Restarts, age(s.LastRestart, now))
	}
	ip := p.Status.PodIP
	if len(p.Status.PodIPs) > 0 {
		ip = p.Status.PodIPs[0].IP
	}
	return []any{p.Name, fmt.Sprintf("%d/%d", s.Ready, s.Total), s.Status, restarts, age(p.CreationTimestamp, now),
		orNone(ip), orNone(p.Spec.NodeName), orNone(p.Status.NominatedNodeName), readinessGates(p)}
}

// PodSummaryInfo is what `kubectl get pods` shows of a pod.
type PodSummaryInfo struct {
	Ready, Total int
	Status       string // "Running", "ContainerCreating", "Init:0/1", "Completed", "Terminating", ...
	Restarts     int
	LastRestart  metav1.Time
}

// PodSummary computes the READY, STATUS and RESTARTS columns the way kubectl
// users know them: the phase (or status.reason), overridden by init
// container progress, then by the waiting or terminated reason of the
// containers, and "Terminating" once a deletion is pending.
func PodSummary(p *corev1.Pod) PodSummaryInfo {
	s := PodSummaryInfo{Total: len(p.Spec.Containers), Status: string(p.Status.Phase)}
	if p.Status.Reason != "" {
		s.Status = p.Status.Reason
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			s.Status = corev1.PodReasonSchedulingGated
		}
	}
	sidecars := sidecarNames(p)
	s.Total += len(sidecars)
	var all, side restartCount
	initializing := initStatus(p, sidecars, &s, &all, &side)
	if !initializing || podCondition(p, corev1.PodInitialized) {
		s.Restarts, s.LastRestart = side.n, side.last
		containerStatus(p, &s)
	} else {
		s.Restarts, s.LastRestart = all.n, all.last
	}
	terminal := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
	switch {
	case p.DeletionTimestamp != nil && p.Status.Reason == "NodeLost":
		s.Status = "Unknown"
	case p.DeletionTimestamp != nil && !terminal:
		s.Status = "Terminating"
	}
	return s
}

// sidecarNames lists init containers that keep running (restartPolicy
// Always); they count as containers of the pod.
func sidecarNames(p *corev1.Pod) map[string]bool {
	out := map[string]bool{}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			out[c.Name] = true
		}
	}
	return out
}

// restartCount sums container restarts and keeps the latest termination.
type restartCount struct {
	n    int
	last metav1.Time
}

func (r *restartCount) add(c corev1.ContainerStatus) {
	r.n += int(c.RestartCount)
	r.last = later(r.last, c.LastTerminationState)
}

// initStatus walks the init containers in order, up to the first one not yet
// done, counting restarts of all of them and of sidecars alone, and reports
// whether the pod is still initializing.
func initStatus(p *corev1.Pod, sidecars map[string]bool, s *PodSummaryInfo, all, side *restartCount) bool {
	for i, c := range p.Status.InitContainerStatuses {
		all.add(c)
		if sidecars[c.Name] {
			side.add(c)
		}
		st := c.State
		switch {
		case st.Terminated != nil && st.Terminated.ExitCode == 0:
			continue
		case sidecars[c.Name] && c.Started != nil && *c.Started:
			if c.Ready {
				s.Ready++
			}
			continue
		case st.Terminated != nil:
			s.Status = "Init:" + terminatedReason(st.Terminated)
		case st.Waiting != nil && st.Waiting.Reason != "" && st.Waiting.Reason != "PodInitializing":
			s.Status = "Init:" + st.Waiting.Reason
		default:
			s.Status = fmt.Sprintf("Init:%d/%d", i, len(p.Spec.InitContainers))
		}
		return true
	}
	return false
}

func containerStatus(p *corev1.Pod, s *PodSummaryInfo) {
	running := false
	for i := len(p.Status.ContainerStatuses) - 1; i >= 0; i-- {
		c := p.Status.ContainerStatuses[i]
		s.Restarts += int(c.RestartCount)
		s.LastRestart = later(s.LastRestart, c.LastTerminationState)
		switch st := c.State; {
		case st.Waiting != nil && st.Waiting.Reason != "":
			s.Status = st.Waiting.Reason
		case st.Terminated != nil:
			s.Status = terminatedReason(st.Terminated)
		case c.Ready && st.Running != nil:
			running = true
			s.Ready++
		}
	}
	if s.Status == "Completed" && running {
		s.Status = "NotReady"
		if podCondition(p, corev1.PodReady) {
			s.Status = "Running"
		}
	}
}

func terminatedReason(t *corev1.ContainerStateTerminated) string {
	switch {
	case t.Reason != "":
		return t.Reason
	case t.Signal != 0:
		return fmt.Sprintf("Signal:%d", t.Signal)
	}
	return fmt.Sprintf("ExitCode:%d", t.ExitCode)
}

func later(t metav1.Time, last corev1.ContainerState) metav1.Time {
	if last.Terminated != nil && t.Before(&last.Terminated.FinishedAt) {
		return last.Terminated.FinishedAt
	}
	return t
}

func podCondition(p *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func readinessGates(p *corev1.Pod) string {
	if len(p.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	n := 0
	for _, g := range p.Spec.ReadinessGates {
		if podCondition(p, g.ConditionType) {
			n++
		}
	}
	return fmt.Sprintf("%d/%d", n, len(p.Spec.ReadinessGates))
}
