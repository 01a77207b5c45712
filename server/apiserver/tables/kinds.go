package tables

import (
	"fmt"
	"sort"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(kindsPrinters) }

func kindsPrinters() {
	register("Namespace", namespaceCells, "Name", "string", "Status", "string", "Age", "string")
	register("Node", nodeCells, "Name", "string", "Status", "string", "Roles", "string", "Age", "string",
		"Version", "string", "Internal-IP+", "string", "External-IP+", "string", "OS-Image+", "string",
		"Kernel-Version+", "string", "Container-Runtime+", "string")
	register("ConfigMap", configMapCells, "Name", "string", "Data", "integer", "Age", "string")
	register("Secret", secretCells, "Name", "string", "Type", "string", "Data", "integer", "Age", "string")
	register("Event", eventCells, "Last Seen", "string", "Type", "string", "Reason", "string", "Object", "string",
		"Subobject+", "string", "Source+", "string", "Message", "string", "First Seen+", "string",
		"Count+", "integer", "Name+", "string")
	register("Lease", leaseCells, "Name", "string", "Holder", "string", "Age", "string")
	for k, v := range map[string]string{
		"Roles": "The node's roles, from its node-role.kubernetes.io/* labels.", "Version": "Kubelet version the node's agent reports.",
		"Data": "Number of data keys.", "Type": "The type of the object.", "Last Seen": "Time since the event was last seen.",
		"Reason": "Short machine-readable reason for the event.", "Object": "The object the event is about.",
		"Message": "What happened, for people.", "Holder": "Identity of the current holder of the lease.",
	} {
		columnHelp[k] = v
	}
}

func namespaceCells(obj api.Object, now time.Time) []any {
	ns := obj.(*corev1.Namespace)
	return []any{ns.Name, string(ns.Status.Phase), age(ns.CreationTimestamp, now)}
}

func nodeCells(obj api.Object, now time.Time) []any {
	n := obj.(*corev1.Node)
	info := n.Status.NodeInfo
	return []any{n.Name, NodeStatusText(n), nodeRoles(n), age(n.CreationTimestamp, now), info.KubeletVersion,
		orNone(nodeAddress(n, corev1.NodeInternalIP)), orNone(nodeAddress(n, corev1.NodeExternalIP)),
		orUnknown(info.OSImage), orUnknown(info.KernelVersion), orUnknown(info.ContainerRuntimeVersion)}
}

// NodeStatusText is the node STATUS column, as kubectl users know it:
// Ready when the Ready condition is True, NotReady when it is False or
// Unknown, Unknown when there is none; plus ",SchedulingDisabled" when
// cordoned.
func NodeStatusText(n *corev1.Node) string {
	status := "Unknown"
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			status = "NotReady"
			if c.Status == corev1.ConditionTrue {
				status = "Ready"
			}
		}
	}
	if n.Spec.Unschedulable {
		status += ",SchedulingDisabled"
	}
	return status
}

func nodeRoles(n *corev1.Node) string {
	roles := map[string]bool{}
	for k, v := range n.Labels {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if role := strings.TrimPrefix(k, "node-role.kubernetes.io/"); role != "" {
				roles[role] = true
			}
		case k == "kubernetes.io/role" && v != "":
			roles[v] = true
		}
	}
	list := make([]string, 0, len(roles))
	for r := range roles {
		list = append(list, r)
	}
	sort.Strings(list)
	return orNone(strings.Join(list, ","))
}

func nodeAddress(n *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

func configMapCells(obj api.Object, now time.Time) []any {
	cm := obj.(*corev1.ConfigMap)
	return []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), age(cm.CreationTimestamp, now)}
}

func secretCells(obj api.Object, now time.Time) []any {
	s := obj.(*corev1.Secret)
	return []any{s.Name, string(s.Type), int64(len(s.Data) + len(s.StringData)), age(s.CreationTimestamp, now)}
}

func eventCells(obj api.Object, now time.Time) []any {
	e := obj.(*corev1.Event)
	first := age(e.FirstTimestamp, now)
	if e.FirstTimestamp.IsZero() {
		first = microAge(e.EventTime, now)
	}
	last := age(e.LastTimestamp, now)
	if e.LastTimestamp.IsZero() {
		last = first
	}
	count := e.Count
	if e.Series != nil {
		last, count = microAge(e.Series.LastObservedTime, now), e.Series.Count
	} else if count == 0 {
		count = 1
	}
	target := strings.ToLower(e.InvolvedObject.Kind)
	if e.InvolvedObject.Name != "" {
		target += "/" + e.InvolvedObject.Name
	}
	return []any{last, e.Type, e.Reason, target, e.InvolvedObject.FieldPath, eventSource(e),
		strings.TrimSpace(e.Message), first, int64(count), e.Name}
}

func microAge(t metav1.MicroTime, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// eventSource is "component, host", falling back to the reporting
// controller and instance of newer events.
func eventSource(e *corev1.Event) string {
	comp, host := e.Source.Component, e.Source.Host
	if comp == "" {
		comp, host = e.ReportingController, e.ReportingInstance
	}
	if host == "" {
		return comp
	}
	return fmt.Sprintf("%s, %s", comp, host)
}

func leaseCells(obj api.Object, now time.Time) []any {
	l := obj.(*coordinationv1.Lease)
	holder := ""
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	return []any{l.Name, holder, age(l.CreationTimestamp, now)}
}
