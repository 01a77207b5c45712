// Package quota computes what objects use of a ResourceQuota, as
// upstream's quota evaluators do: object counts, pods' compute requests
// and limits, claims' storage. It is pure logic; admission
// (server/admission) and the quota status controller share it.
package quota

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

var one = *resource.NewQuantity(1, resource.DecimalSI)

// PodCompute is a pod's effective requests and limits: the larger of its
// containers' sum (sidecar init containers included) and its largest
// init container, plus the pod's overhead.
func PodCompute(spec *corev1.PodSpec) (requests, limits corev1.ResourceList) {
	return podTotal(spec, false), podTotal(spec, true)
}

func podTotal(spec *corev1.PodSpec, limits bool) corev1.ResourceList {
	pick := func(c *corev1.Container) corev1.ResourceList {
		if limits {
			return c.Resources.Limits
		}
		return c.Resources.Requests
	}
	sum := corev1.ResourceList{}
	for i := range spec.Containers {
		add(sum, pick(&spec.Containers[i]))
	}
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(sum, pick(c))
			continue
		}
		for k, q := range pick(c) {
			if cur, ok := sum[k]; !ok || q.Cmp(cur) > 0 {
				sum[k] = q.DeepCopy()
			}
		}
	}
	for k, q := range spec.Overhead {
		if _, ok := sum[k]; ok || !limits {
			add(sum, corev1.ResourceList{k: q})
		}
	}
	return sum
}

func add(to, from corev1.ResourceList) {
	for k, q := range from {
		cur := to[k]
		cur.Add(q)
		to[k] = cur
	}
}

// Terminal reports a pod whose compute use is no longer counted: it has
// finished, or its deletion's grace period is over.
func Terminal(p *corev1.Pod, now time.Time) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return true
	}
	if p.DeletionTimestamp == nil || p.DeletionGracePeriodSeconds == nil {
		return false
	}
	return now.After(p.DeletionTimestamp.Add(time.Duration(*p.DeletionGracePeriodSeconds) * time.Second))
}

// PodUsage is what a pod uses: count/pods always (it is stored), and
// while it is not terminal pods, cpu, memory, ephemeral storage and
// hugepages (requests.X and X for requests; limits.X for limits but
// hugepages), and extended resources (requests.X).
func PodUsage(p *corev1.Pod, now time.Time) corev1.ResourceList {
	out := corev1.ResourceList{"count/pods": one}
	if Terminal(p, now) {
		return out
	}
	out[corev1.ResourcePods] = one
	requests, limits := PodCompute(&p.Spec)
	add(out, computeUsage(requests, limits))
	return out
}

// computeUsage names requests and limits as quota resources.
func computeUsage(requests, limits corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, q := range requests {
		switch {
		case k == corev1.ResourceCPU || k == corev1.ResourceMemory || k == corev1.ResourceEphemeralStorage ||
			strings.HasPrefix(string(k), "hugepages-"):
			out[k] = q.DeepCopy()
			out["requests."+k] = q.DeepCopy()
		case strings.Contains(string(k), "/"): // extended resources: requests.<name> only
			out["requests."+k] = q.DeepCopy()
		}
	}
	for k, q := range limits {
		if k == corev1.ResourceCPU || k == corev1.ResourceMemory || k == corev1.ResourceEphemeralStorage {
			out["limits."+k] = q.DeepCopy()
		}
	}
	return out
}

// computeNames are the quota resources each container must request or
// limit itself when a quota limits them.
var computeNames = []corev1.ResourceName{"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}

// MissingCompute names, as upstream's message does, the compute resources
// among hard that some of p's containers neither request nor limit:
// "limits.cpu for: app; requests.memory for: app,side". "" when none.
func MissingCompute(hard corev1.ResourceList, p *corev1.Pod) string {
	missing := map[corev1.ResourceName][]string{}
	all := append(append([]corev1.Container(nil), p.Spec.Containers...), p.Spec.InitContainers...)
	for _, c := range all {
		has := computeUsage(c.Resources.Requests, c.Resources.Limits)
		for _, name := range computeNames {
			if _, limited := hard[name]; !limited {
				continue
			}
			if _, ok := has[name]; !ok {
				missing[name] = append(missing[name], c.Name)
			}
		}
	}
	var parts []string
	for name, cs := range missing {
		sort.Strings(cs)
		parts = append(parts, fmt.Sprintf("%s for: %s", name, strings.Join(cs, ",")))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}
