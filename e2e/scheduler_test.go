package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// sensorImage is offered for linux/arm64 only, as the arm64 hollow nodes
// report it; the scheduler must never put it on an amd64 node.
const sensorImage = "registry.lan/sensor:1"

// TestSchedulerWithHollowNodes schedules through the real server onto a
// mixed fleet of hollow agents: amd64 and arm64 nodes of different sizes,
// two in another zone, two tainted, two labelled disktype=ssd. The 300
// pods of a Deployment spread over the untainted nodes without over-committing any;
// pods of an arm64-only image land on arm64 nodes only; ssd pods land on
// ssd nodes; a pod too big for every node stays Pending with the reasons
// counted, and is placed once a node that fits joins.
func TestSchedulerWithHollowNodes(t *testing.T) {
	s := cluster.StartServer(t)
	token := cluster.JoinToken(t, s)
	startFleet(t, s, token, hollownode.Config{Prefix: "amd", Nodes: 3, Arch: "amd64", CPU: resource.MustParse("8"), Memory: resource.MustParse("16Gi"),
		Labels: map[string]string{"topology.kubernetes.io/zone": "a"}})
	startFleet(t, s, token, hollownode.Config{Prefix: "arm", Nodes: 4, Arch: "arm64", CPU: resource.MustParse("4"), Memory: resource.MustParse("8Gi"),
		Labels: map[string]string{"topology.kubernetes.io/zone": "a"}, Images: map[string][]string{sensorImage: {"linux/arm64"}}})
	startFleet(t, s, token, hollownode.Config{Prefix: "ssd", Nodes: 2, Arch: "arm64", CPU: resource.MustParse("4"), Memory: resource.MustParse("8Gi"),
		Labels: map[string]string{"topology.kubernetes.io/zone": "b", "disktype": "ssd"}})
	startFleet(t, s, token, hollownode.Config{Prefix: "gpu", Nodes: 2, Arch: "amd64", CPU: resource.MustParse("16"), Memory: resource.MustParse("64Gi"),
		Taints: []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}})
	const nodes = 11
	waitNodes(t, s, nodes)

	// The constrained pods go first: the scheduler does not preempt, so
	// web pods created before them could fill the ssd nodes.
	var manifest strings.Builder
	for i := range 6 {
		manifest.WriteString(schedPod(fmt.Sprintf("db-%d", i), "db", "docker.io/library/postgres:16", "disktype: ssd", "100m", "256Mi"))
	}
	for i := range 20 {
		manifest.WriteString(schedPod(fmt.Sprintf("sensor-%d", i), "sensor", sensorImage, "", "50m", "32Mi"))
	}
	manifest.WriteString(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 300
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: main, image: "docker.io/library/nginx:1", resources: {requests: {cpu: 100m, memory: 128Mi}}}
---
`)
	manifest.WriteString(schedPod("huge", "huge", "docker.io/library/busybox:1", "", "32", "1Gi"))
	if _, stderr, err := s.Apply(manifest.String()); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	pods := waitBound(t, s, 327)
	checkPlacement(t, pods)

	cluster.WaitFor(t, 30*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", "huge", "-o", `jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}`)
		return err == nil && strings.HasPrefix(out, "0/11 nodes are available:")
	}, "the huge pod's PodScheduled condition to explain why it is Pending")
	msg := s.MustKubectl("get", "pod", "huge", "-o", `jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}`)
	for _, want := range []string{"9 Insufficient cpu", "2 node(s) had untolerated taint {dedicated: gpu}"} {
		if !strings.Contains(msg, want) {
			t.Errorf("huge pod's message: got %q, want it to count %q", msg, want)
		}
	}
	if out := s.MustKubectl("describe", "pod", "huge"); !strings.Contains(out, "FailedScheduling") || !strings.Contains(out, "0/11 nodes are available") {
		t.Errorf("kubectl describe pod huge: want a FailedScheduling event with the reasons, got:\n%s", out)
	}
	startFleet(t, s, token, hollownode.Config{Prefix: "big", Nodes: 1, Arch: "amd64", CPU: resource.MustParse("64"), Memory: resource.MustParse("128Gi")})
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pod", "huge", "-o", "jsonpath={.spec.nodeName}")
		return err == nil && out == "big-0"
	}, "the huge pod to be placed on the big node once it joins")
}

func startFleet(t *testing.T, s *cluster.Server, token string, cfg hollownode.Config) {
	t.Helper()
	cfg.Server, cfg.Token, cfg.StateDir, cfg.Heartbeat = s.URL(), token, t.TempDir(), 2*time.Second
	f, err := hollownode.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("hollow fleet %s: %v", cfg.Prefix, err)
	}
	t.Cleanup(f.Stop)
}

func waitNodes(t *testing.T, s *cluster.Server, n int) {
	t.Helper()
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "nodes", "-o", `jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}`)
		return err == nil && strings.Count(out, "True") == n
	}, fmt.Sprintf("%d Ready nodes", n))
}

func schedPod(name, app, image, nodeSelector, cpu, memory string) string {
	sel := ""
	if nodeSelector != "" {
		sel = "  nodeSelector: {" + nodeSelector + "}\n"
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  namespace: default
  labels: {app: %s}
spec:
%s  containers:
  - name: main
    image: %s
    resources: {requests: {cpu: %s, memory: %s}}
---
`, name, app, sel, image, cpu, memory)
}

// waitBound waits until want pods are bound (one may stay Pending: huge)
// and returns every pod.
func waitBound(t *testing.T, s *cluster.Server, total int) []corev1.Pod {
	t.Helper()
	var list corev1.PodList
	defer func() {
		if !t.Failed() {
			return
		}
		for _, p := range list.Items {
			if p.Spec.NodeName == "" {
				t.Logf("unbound pod %s: %+v", p.Name, p.Status.Conditions)
			}
		}
		t.Logf("server output:\n%s", s.Logs())
	}()
	cluster.WaitFor(t, 120*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "pods", "-o", "json")
		if err != nil || json.Unmarshal([]byte(out), &list) != nil {
			return false
		}
		bound := 0
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				bound++
			}
		}
		return len(list.Items) == total && bound == total-1
	}, fmt.Sprintf("%d of %d pods to be bound", total-1, total))
	return list.Items
}

// checkPlacement checks the constraints and the spreading of the pods.
func checkPlacement(t *testing.T, pods []corev1.Pod) {
	t.Helper()
	webPerNode := map[string]int{}
	for _, p := range pods {
		node := p.Spec.NodeName
		switch app := p.Labels["app"]; {
		case node == "":
			if p.Name != "huge" {
				t.Errorf("pod %s is not bound", p.Name)
			}
		case strings.HasPrefix(node, "gpu-"):
			t.Errorf("pod %s landed on tainted node %s without a toleration", p.Name, node)
		case app == "sensor" && strings.HasPrefix(node, "amd-"):
			t.Errorf("pod %s of the arm64-only image landed on amd64 node %s", p.Name, node)
		case app == "db" && !strings.HasPrefix(node, "ssd-"):
			t.Errorf("pod %s with nodeSelector disktype=ssd landed on %s", p.Name, node)
		case app == "web":
			webPerNode[node]++
		}
	}
	// 300 web pods over the 9 untainted nodes: none may be left empty or
	// take a third of them.
	if len(webPerNode) != 9 {
		t.Errorf("web pods spread over %d nodes, want all 9 untainted nodes: %v", len(webPerNode), webPerNode)
	}
	for node, n := range webPerNode {
		if n > 100 {
			t.Errorf("node %s got %d of 300 web pods: not spread (%v)", node, n, webPerNode)
		}
	}
	t.Logf("web pods per node: %v", webPerNode)
	checkNoOvercommit(t, pods)
}

// checkNoOvercommit sums the requests on each node against what the
// hollow fleets report as allocatable.
func checkNoOvercommit(t *testing.T, pods []corev1.Pod) {
	t.Helper()
	alloc := map[string][2]int64{"amd": {8000, 16 << 30}, "arm": {4000, 8 << 30}, "ssd": {4000, 8 << 30}, "big": {64000, 128 << 30}}
	used := map[string][2]int64{}
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			continue
		}
		r := p.Spec.Containers[0].Resources.Requests
		u := used[p.Spec.NodeName]
		used[p.Spec.NodeName] = [2]int64{u[0] + r.Cpu().MilliValue(), u[1] + r.Memory().Value()}
	}
	for node, u := range used {
		a := alloc[strings.SplitN(node, "-", 2)[0]]
		if u[0] > a[0] || u[1] > a[1] {
			t.Errorf("node %s over-committed: %d mCPU, %d bytes requested; allocatable %d mCPU, %d bytes", node, u[0], u[1], a[0], a[1])
		}
	}
}
