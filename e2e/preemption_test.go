package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

const priorityClasses = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
`

func priorityPod(name, ns, class, cpu string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s, namespace: %s, labels: {app: %s}}
spec:
  priorityClassName: %s
  containers: [{name: main, image: registry.lan/app:v1, resources: {requests: {cpu: %s}}}]
`, name, ns, name, class, cpu)
}

const criticalDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent-critical, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent-critical}}
  template:
    metadata: {labels: {app: agent-critical}}
    spec:
      priorityClassName: system-node-critical
      containers: [{name: main, image: registry.lan/critical:v1, resources: {requests: {cpu: "1"}}}]
`

// TestPreemptionMakesRoom: on a full node, a high-priority pod evicts a
// lower-priority one and runs; then a system-node-critical DaemonSet pod
// (which its controller binds to the node itself) gets room on the full
// node the same way, taking the least important pod.
func TestPreemptionMakesRoom(t *testing.T) {
	s := cluster.StartServer(t)
	startFleet(t, s, cluster.JoinToken(t, s), hollownode.Config{Prefix: "pi", Nodes: 1, Arch: "arm64",
		CPU: resource.MustParse("2"), Memory: resource.MustParse("4Gi")})
	waitNodes(t, s, 1)
	apply(t, s, priorityClasses)
	apply(t, s, priorityPod("low", "default", "low", "1500m"))
	waitPhase(t, s, "low", "Running")
	apply(t, s, priorityPod("high", "default", "high", "1"))
	waitPhase(t, s, "high", "Running")
	if out, _, _ := s.Kubectl("get", "pod", "low", "-o", "name"); strings.Contains(out, "low") {
		t.Errorf("the preempted pod low is still there:\n%s", out)
	}
	if out := s.MustKubectl("get", "events", "--field-selector", "involvedObject.name=low"); !strings.Contains(out, "Preempted") {
		t.Errorf("no Preempted event for low:\n%s", out)
	}

	apply(t, s, priorityPod("filler", "default", "low", "1"))
	waitPhase(t, s, "filler", "Running")
	apply(t, s, criticalDaemonSet)
	cluster.WaitFor(t, 60*time.Second, func() bool {
		var list corev1.PodList
		return getJSON(s, &list, "pods", "-n", "kube-system", "-l", "app=agent-critical") &&
			len(list.Items) == 1 && list.Items[0].Status.Phase == corev1.PodRunning
	}, "the system-node-critical DaemonSet pod Running on the full node")
	if phase := podPhase(s, "high"); phase != corev1.PodRunning || podPhase(s, "filler") != "" {
		t.Errorf("pod high is %q and filler %q: want high Running and the lower-priority filler gone to make room", phase, podPhase(s, "filler"))
	}
}

func podPhase(s *cluster.Server, name string) corev1.PodPhase {
	var p corev1.Pod
	if !getJSON(s, &p, "pod", name) {
		return ""
	}
	return p.Status.Phase
}
