package scheduler

import (
	"fmt"
	"maps"
	"sort"
	"strings"
)

// filter rejects the nodes a pod cannot run on. Each filter checks one
// thing, lives in a file named after it, and reads only the cycle and the
// node: no I/O, no locks, no changes.
type filter interface {
	// filter returns nil when the pod may run on the node, else why not,
	// in kube-scheduler's words. Only the resources filter ever gives more
	// than one reason (one per resource that is short), as
	// kube-scheduler's NodeResourcesFit does.
	filter(c *cycle, n *nodeInfo) []string
}

// optional is implemented by filters that pass every node for some pods
// (a pod without host ports, say): needed reports whether the cycle's pod
// is one they can reject a node for. It is asked after the cycle's
// preparation (arch rule, affinity domains).
type optional interface {
	needed(c *cycle) bool
}

func (nodeSelector) needed(c *cycle) bool { return c.pod.nodes != nil }
func (archFilter) needed(c *cycle) bool   { return len(c.arch.images) > 0 }
func (hostPorts) needed(c *cycle) bool    { return len(c.pod.ports) > 0 }
func (resourcesFit) needed(c *cycle) bool { return !c.pod.req.isZero() }
func (podAffinity) needed(c *cycle) bool  { return len(c.pod.affinity) > 0 }
func (antiAffinity) needed(c *cycle) bool { return len(c.pod.anti) > 0 || len(c.forbidden) > 0 }
func (volumeFilter) needed(c *cycle) bool { return c.volumes != nil }

// Reasons, worded as kube-scheduler 1.32 words them, so that messages read
// the same as on any Kubernetes cluster.
var (
	reasonUnschedulable    = []string{"node(s) were unschedulable"}
	reasonNodeAffinity     = []string{"node(s) didn't match Pod's node affinity/selector"}
	reasonTooManyPods      = []string{"Too many pods"}
	reasonHostPorts        = []string{"node(s) didn't have free ports for the requested pod ports"}
	reasonAffinity         = []string{"node(s) didn't match pod affinity rules"}
	reasonAntiAffinity     = []string{"node(s) didn't match pod anti-affinity rules"}
	reasonExistingAntiAffi = []string{"node(s) didn't satisfy existing pods anti-affinity rules"}
)

// defaultFilters is the filter chain, wired once. The order is stable and
// follows kube-scheduler's (cheap node checks first); a node is rejected by
// the first filter that fails, so it contributes that filter's reasons only.
func defaultFilters() []filter {
	return []filter{
		nodeReady{},
		taintToleration{},
		nodeSelector{},
		archFilter{},
		hostPorts{},
		podCount{},
		resourcesFit{},
		podAffinity{},
		antiAffinity{},
		volumeFilter{},
	}
}

// runFilters applies the chain to one node.
func runFilters(filters []filter, c *cycle, n *nodeInfo) []string {
	for _, f := range filters {
		if reasons := f.filter(c, n); reasons != nil {
			return reasons
		}
	}
	return nil
}

// FitError says that no node can take a pod, and why, counted per reason.
// Its message reads exactly as kube-scheduler's:
//
//	0/12 nodes are available: 5 Insufficient memory, 7 node(s) didn't match Pod's node affinity/selector.
//
// Each node counts once under each reason the first filter that rejected
// it gave; the "count reason" parts are sorted as strings, as
// kube-scheduler sorts them. What preemption found is appended by the
// loop (preempt_run.go).
type FitError struct {
	Pod         string         // namespace/name
	NumAllNodes int            // nodes in the snapshot
	Reasons     map[string]int // reason -> number of nodes rejected for it
}

// noNodesReason completes the message when the cluster has no nodes at all
// (kube-scheduler says only "no nodes available to schedule pods" there;
// bramble keeps the usual shape so every failure reads alike).
const noNodesReason = "no nodes available to schedule pods"

func newFitError(pod string, all int, reasons map[string]int) *FitError {
	return &FitError{Pod: pod, NumAllNodes: all, Reasons: maps.Clone(reasons)}
}

func (e *FitError) Error() string {
	msg := fmt.Sprintf("0/%d nodes are available:", e.NumAllNodes)
	if e.NumAllNodes == 0 {
		return msg + " " + noNodesReason + "."
	}
	parts := make([]string, 0, len(e.Reasons))
	for reason, n := range e.Reasons {
		parts = append(parts, fmt.Sprintf("%d %s", n, reason))
	}
	if len(parts) == 0 {
		return msg
	}
	sort.Strings(parts)
	return msg + " " + strings.Join(parts, ", ") + "."
}
