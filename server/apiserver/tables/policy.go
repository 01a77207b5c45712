package tables

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(policyPrinters) }

func policyPrinters() {
	register("ResourceQuota", quotaCells, "Name", "string", "Age", "string", "Request", "string", "Limit", "string")
	register("LimitRange", limitRangeCells, "Name", "string", "Created At", "date")
	register("PriorityClass", priorityClassCells, "Name", "string", "Value", "integer", "Global-Default", "boolean",
		"Age", "string", "PreemptionPolicy", "string")
	register("RuntimeClass", runtimeClassCells, "Name", "string", "Handler", "string", "Age", "string")
	register("PodDisruptionBudget", pdbCells, "Name", "string", "Min Available", "string", "Max Unavailable", "string",
		"Allowed Disruptions", "integer", "Age", "string")
	for k, v := range map[string]string{
		"Request":             "Resources limited by the quota other than limits.*, as used/hard.",
		"Limit":               "The quota's limits.* resources, as used/hard.",
		"Created At":          "When the object was created.",
		"Value":               "The priority of pods of this class.",
		"Global-Default":      "Whether pods naming no class get this one.",
		"PreemptionPolicy":    "Whether pods of this class preempt lower priority pods.",
		"Handler":             "The container runtime configuration the class names.",
		"Min Available":       "Pods that must remain available.",
		"Max Unavailable":     "Pods that may be unavailable.",
		"Allowed Disruptions": "Pod disruptions the budget allows now.",
	} {
		columnHelp[k] = v
	}
}

// quotaCells prints used/hard per resource, limits.* in their own column.
func quotaCells(obj api.Object, now time.Time) []any {
	q := obj.(*corev1.ResourceQuota)
	names := make([]string, 0, len(q.Spec.Hard))
	for k := range q.Spec.Hard {
		names = append(names, string(k))
	}
	sort.Strings(names)
	var request, limit []string
	for _, n := range names {
		used, hard := q.Status.Used[corev1.ResourceName(n)], q.Status.Hard[corev1.ResourceName(n)]
		cell := fmt.Sprintf("%s: %s/%s", n, used.String(), hard.String())
		if strings.HasPrefix(n, "limits.") {
			limit = append(limit, cell)
		} else {
			request = append(request, cell)
		}
	}
	return []any{q.Name, age(q.CreationTimestamp, now), strings.Join(request, ", "), strings.Join(limit, ", ")}
}

func limitRangeCells(obj api.Object, _ time.Time) []any {
	lr := obj.(*corev1.LimitRange)
	return []any{lr.Name, lr.CreationTimestamp.UTC().Format(time.RFC3339)}
}

func priorityClassCells(obj api.Object, now time.Time) []any {
	pc := obj.(*schedulingv1.PriorityClass)
	policy := "<unset>"
	if pc.PreemptionPolicy != nil {
		policy = string(*pc.PreemptionPolicy)
	}
	return []any{pc.Name, int64(pc.Value), pc.GlobalDefault, age(pc.CreationTimestamp, now), policy}
}

func runtimeClassCells(obj api.Object, now time.Time) []any {
	rc := obj.(*nodev1.RuntimeClass)
	return []any{rc.Name, rc.Handler, age(rc.CreationTimestamp, now)}
}

func pdbCells(obj api.Object, now time.Time) []any {
	pdb := obj.(*policyv1.PodDisruptionBudget)
	return []any{pdb.Name, intOrNA(pdb.Spec.MinAvailable), intOrNA(pdb.Spec.MaxUnavailable),
		int64(pdb.Status.DisruptionsAllowed), age(pdb.CreationTimestamp, now)}
}

func intOrNA(v *intstr.IntOrString) string {
	if v == nil {
		return "N/A"
	}
	return v.String()
}
