package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// webDeployment is a Deployment of hollow pods whose image is tag; its
// pods leave a node that stops answering after 2 s.
func webDeployment(name string, replicas int, tag string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: default}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: %[1]s}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      tolerations:
      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 2}
      - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 2}
      containers:
      - name: web
        image: registry.lan/web:%[3]s
        resources: {requests: {cpu: 100m, memory: 64Mi}}
`, name, replicas, tag)
}

// TestDeploymentLifecycleWithKubectl drives a Deployment on hollow nodes
// the way users do: scale up and down, a rolling update during which the
// available pods never drop below replicas-maxUnavailable and the
// ReplicaSets never ask for more than replicas+maxSurge pods (checked on
// every watch event; see rollout_watch_test.go), history,
// undo back to the first ReplicaSet, pause and resume, and a server
// restarted in the middle of a rollout that still finishes it.
func TestDeploymentLifecycleWithKubectl(t *testing.T) {
	s := cluster.StartServer(t)
	startFleet(t, s, cluster.JoinToken(t, s), hollownode.Config{Prefix: "pi", Nodes: 4, Arch: "arm64",
		CPU: resource.MustParse("4"), Memory: resource.MustParse("8Gi")})
	waitNodes(t, s, 4)

	apply(t, s, webDeployment("web", 6, "v1"))
	rolloutStatus(t, s, "deployment/web")
	s.MustKubectl("scale", "deployment/web", "--replicas=10")
	rolloutStatus(t, s, "deployment/web")
	waitPods(t, s, "app=web", 10, "v1")
	s.MustKubectl("scale", "deployment/web", "--replicas=6")
	waitPods(t, s, "app=web", 6, "v1")
	initial := ownedReplicaSets(t, s, "app=web")
	if len(initial) != 1 {
		t.Fatalf("ReplicaSets of web before any update: got %v, want one", initial)
	}
	var firstRS string
	for name := range initial {
		firstRS = name
	}

	check := watchAvailability(t, s, "app=web", 6, 1, 1)
	s.MustKubectl("set", "image", "deployment/web", "web=registry.lan/web:v2")
	rolloutStatus(t, s, "deployment/web")
	waitPods(t, s, "app=web", 6, "v2")
	check()
	if out := s.MustKubectl("rollout", "history", "deployment/web"); !strings.Contains(out, "1 ") || !strings.Contains(out, "2 ") {
		t.Errorf("kubectl rollout history: want revisions 1 and 2, got:\n%s", out)
	}

	check = watchAvailability(t, s, "app=web", 6, 1, 1)
	s.MustKubectl("rollout", "undo", "deployment/web")
	rolloutStatus(t, s, "deployment/web")
	waitPods(t, s, "app=web", 6, "v1")
	check()
	rs := ownedReplicaSets(t, s, "app=web")
	if len(rs) != 2 || rs[firstRS].replicas != 6 {
		t.Errorf("after undo: got ReplicaSets %v, want the first one (%s) revived with 6 replicas and no third", rs, firstRS)
	}

	s.MustKubectl("rollout", "pause", "deployment/web")
	s.MustKubectl("set", "image", "deployment/web", "web=registry.lan/web:v4")
	cluster.WaitFor(t, 20*time.Second, func() bool {
		var d appsv1.Deployment
		return getJSON(s, &d, "deployment", "web") && d.Status.ObservedGeneration == d.Generation
	}, "the paused Deployment's change to be observed")
	if got := len(ownedReplicaSets(t, s, "app=web")); got != 2 {
		t.Errorf("a paused Deployment rolled out: %d ReplicaSets, want still 2", got)
	}
	s.MustKubectl("rollout", "resume", "deployment/web")
	rolloutStatus(t, s, "deployment/web")
	waitPods(t, s, "app=web", 6, "v4")

	// A server restarted in the middle of a rollout finishes it.
	s.MustKubectl("set", "image", "deployment/web", "web=registry.lan/web:v5")
	cluster.WaitFor(t, 20*time.Second, func() bool { return countImage(listPods(s, "app=web"), "v5") > 0 }, "the first v5 pod")
	s.Stop()
	s.Start()
	rolloutStatus(t, s, "deployment/web")
	waitPods(t, s, "app=web", 6, "v5")
	if got := len(ownedReplicaSets(t, s, "app=web")); got != 4 {
		t.Errorf("after the restarted rollout: %d ReplicaSets, want 4 (v1, v2, v4, v5)", got)
	}
	if out := s.MustKubectl("describe", "deployment", "web"); !strings.Contains(out, "ScalingReplicaSet") {
		t.Errorf("kubectl describe deployment web: want ScalingReplicaSet events, got:\n%s", out)
	}
}

// TestDaemonSetFollowsNodes runs one pod per node: a node that joins gets
// one, a node that is deleted loses it, and a new image rolls across the
// nodes.
func TestDaemonSetFollowsNodes(t *testing.T) {
	s := cluster.StartServer(t)
	token := cluster.JoinToken(t, s)
	startFleet(t, s, token, hollownode.Config{Prefix: "pi", Nodes: 2, Arch: "arm64"})
	waitNodes(t, s, 2)
	apply(t, s, `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: sensor, namespace: default}
spec:
  selector: {matchLabels: {app: sensor}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
  template:
    metadata: {labels: {app: sensor}}
    spec:
      containers: [{name: sensor, image: "registry.lan/sensor:v1"}]
`)
	waitPodsOnNodes(t, s, "app=sensor", "pi-0", "pi-1")
	startFleet(t, s, token, hollownode.Config{Prefix: "late", Nodes: 1, Arch: "arm64"})
	waitPodsOnNodes(t, s, "app=sensor", "late-0", "pi-0", "pi-1")
	s.MustKubectl("delete", "node", "pi-1")
	waitPodsOnNodes(t, s, "app=sensor", "late-0", "pi-0")
	s.MustKubectl("set", "image", "daemonset/sensor", "sensor=registry.lan/sensor:v2")
	rolloutStatus(t, s, "daemonset/sensor")
	waitPods(t, s, "app=sensor", 2, "v2")
}

// TestNodeLossMovesDeploymentPods stops a node's heartbeats: it turns
// NotReady and is tainted unreachable; its Deployment pods are re-created
// on the other nodes, its DaemonSet pod is left alone.
func TestNodeLossMovesDeploymentPods(t *testing.T) {
	s := cluster.StartServer(t, "--node-monitor-grace-period", "4s")
	token := cluster.JoinToken(t, s)
	startFleet(t, s, token, hollownode.Config{Prefix: "stay", Nodes: 2, Arch: "arm64"})
	cfg := hollownode.Config{Prefix: "lost", Nodes: 1, Arch: "arm64", Server: s.URL(), Token: token,
		StateDir: t.TempDir(), Heartbeat: time.Second}
	lost, err := hollownode.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lost.Stop)
	waitNodes(t, s, 3)
	apply(t, s, webDeployment("web", 6, "v1"))
	apply(t, s, `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agentd, namespace: default}
spec:
  selector: {matchLabels: {app: agentd}}
  template:
    metadata: {labels: {app: agentd}}
    spec:
      containers: [{name: agentd, image: "registry.lan/agentd:v1"}]
`)
	rolloutStatus(t, s, "deployment/web")
	waitPodsOnNodes(t, s, "app=agentd", "lost-0", "stay-0", "stay-1")
	if n := podsOn(listPods(s, "app=web"), "lost-0"); n == 0 {
		t.Fatalf("no web pod landed on lost-0; the test needs one there")
	}

	lost.Stop()
	defer func() {
		if t.Failed() {
			out, _, _ := s.Kubectl("get", "pods", "-o", "wide")
			node, _, _ := s.Kubectl("get", "node", "lost-0", "-o", "yaml")
			t.Logf("pods:\n%s\nnode:\n%s\nserver:\n%s", out, node, tail(s.Logs(), 60))
		}
	}()
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "node", "lost-0", "-o", "jsonpath={.spec.taints[*].key}")
		return err == nil && strings.Contains(out, "node.kubernetes.io/unreachable")
	}, "lost-0 to be tainted unreachable")
	if out := s.MustKubectl("get", "node", "lost-0"); !strings.Contains(out, "NotReady") {
		t.Errorf("kubectl get node lost-0: want NotReady, got:\n%s", out)
	}
	// Evicted pods stay Terminating while their node is unreachable (as
	// upstream: their containers may still run); their replacements run
	// on the other nodes.
	cluster.WaitFor(t, 60*time.Second, func() bool {
		web := notTerminating(listPods(s, "app=web"))
		return podsOn(web, "lost-0") == 0 && countImage(web, "v1") == 6 && readyCount(web) == 6
	}, "the web pods of lost-0 to be re-created on the other nodes")
	stuck := podsOn(listPods(s, "app=web"), "lost-0")
	if stuck == 0 {
		t.Errorf("web pods of the unreachable node: got none stored, want them Terminating until the node is back")
	}
	if n := podsOn(listPods(s, "app=agentd"), "lost-0"); n != 1 {
		t.Errorf("DaemonSet pods on the lost node: got %d, want 1 (never evicted)", n)
	}

	// The node comes back: Ready, untainted, its DaemonSet pod still Ready.
	back, err := hollownode.Start(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(back.Stop)
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "node", "lost-0", "-o", "jsonpath={.spec.taints[*].key}")
		return err == nil && out == "" && strings.Contains(s.MustKubectl("get", "node", "lost-0"), " Ready ")
	}, "lost-0 to be Ready and untainted again")
	waitPodsOnNodes(t, s, "app=agentd", "lost-0", "stay-0", "stay-1")
	cluster.WaitFor(t, 30*time.Second, func() bool {
		return podsOn(listPods(s, "app=web"), "lost-0") == 0
	}, "the node back to finish the deletion of its evicted web pods")
}

// notTerminating drops the pods being deleted.
func notTerminating(pods []corev1.Pod) []corev1.Pod {
	var out []corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

// TestCascadingDelete deletes owners with each propagation policy.
func TestCascadingDelete(t *testing.T) {
	s := cluster.StartServer(t)
	startFleet(t, s, cluster.JoinToken(t, s), hollownode.Config{Prefix: "pi", Nodes: 2, Arch: "arm64"})
	waitNodes(t, s, 2)
	for _, name := range []string{"bg", "fg", "keep"} {
		apply(t, s, webDeployment(name, 3, "v1"))
		rolloutStatus(t, s, "deployment/"+name)
	}
	s.MustKubectl("delete", "deployment", "bg")
	s.MustKubectl("delete", "deployment", "fg", "--cascade=foreground")
	s.MustKubectl("delete", "deployment", "keep", "--cascade=orphan")
	for _, name := range []string{"bg", "fg"} {
		cluster.WaitFor(t, 30*time.Second, func() bool {
			rs, _, err1 := s.Kubectl("get", "rs", "-l", "app="+name, "-o", "name")
			pods, _, err2 := s.Kubectl("get", "pods", "-l", "app="+name, "-o", "name")
			_, _, err3 := s.Kubectl("get", "deployment", name)
			return err1 == nil && err2 == nil && err3 != nil && rs == "" && pods == ""
		}, "deployment "+name+" and everything it owned to be gone")
	}
	var list appsv1.ReplicaSetList
	if !getJSON(s, &list, "rs", "-l", "app=keep") || len(list.Items) != 1 || len(list.Items[0].OwnerReferences) != 0 {
		t.Fatalf("after an orphaning delete: want one ReplicaSet without ownerReferences, got %+v", list.Items)
	}
	if n := readyCount(listPods(s, "app=keep")); n != 3 {
		t.Errorf("pods of the orphaned ReplicaSet: got %d Ready, want 3", n)
	}
}

func apply(t *testing.T, s *cluster.Server, manifest string) {
	t.Helper()
	if _, stderr, err := s.Apply(manifest); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
}

func rolloutStatus(t *testing.T, s *cluster.Server, what string) {
	t.Helper()
	if out, stderr, err := s.Kubectl("rollout", "status", what, "--timeout=90s"); err != nil {
		t.Fatalf("kubectl rollout status %s: %v\n%s%s\nserver:\n%s", what, err, out, stderr, tail(s.Logs(), 40))
	}
}

func tail(s string, lines int) string {
	parts := strings.Split(s, "\n")
	return strings.Join(parts[max(0, len(parts)-lines):], "\n")
}

func getJSON(s *cluster.Server, into any, args ...string) bool {
	out, _, err := s.Kubectl(append(append([]string{"get"}, args...), "-o", "json")...)
	return err == nil && json.Unmarshal([]byte(out), into) == nil
}

func listPods(s *cluster.Server, selector string) []corev1.Pod {
	var list corev1.PodList
	if !getJSON(s, &list, "pods", "-l", selector) {
		return nil
	}
	return list.Items
}

// countImage counts the pods whose image has tag.
func countImage(pods []corev1.Pod, tag string) int {
	n := 0
	for _, p := range pods {
		if strings.HasSuffix(p.Spec.Containers[0].Image, ":"+tag) {
			n++
		}
	}
	return n
}

// podsOn counts the pods bound to node.
func podsOn(pods []corev1.Pod, node string) int {
	n := 0
	for _, p := range pods {
		if p.Spec.NodeName == node {
			n++
		}
	}
	return n
}

// readyCount counts the Ready pods.
func readyCount(pods []corev1.Pod) int {
	n := 0
	for _, p := range pods {
		if podReady(&p) {
			n++
		}
	}
	return n
}

func podReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// waitPods waits until exactly n pods match selector, all Ready and all
// of image tag.
func waitPods(t *testing.T, s *cluster.Server, selector string, n int, tag string) {
	t.Helper()
	cluster.WaitFor(t, 60*time.Second, func() bool {
		pods := listPods(s, selector)
		return len(pods) == n && countImage(pods, tag) == n && readyCount(pods) == n
	}, fmt.Sprintf("%d Ready pods %s of image tag %s", n, selector, tag))
}

// waitPodsOnNodes waits until the pods matching selector are exactly one
// Ready pod on each of nodes.
func waitPodsOnNodes(t *testing.T, s *cluster.Server, selector string, nodes ...string) {
	t.Helper()
	want := strings.Join(nodes, " ")
	var got string
	cluster.WaitFor(t, 60*time.Second, func() bool {
		pods := listPods(s, selector)
		var on []string
		for _, p := range pods {
			if podReady(&p) {
				on = append(on, p.Spec.NodeName)
			}
		}
		slices.Sort(on)
		got = strings.Join(on, " ")
		return got == want && len(pods) == len(nodes)
	}, fmt.Sprintf("one Ready pod %s on each of %s", selector, want))
}

type rsInfo struct {
	name     string
	replicas int32
}

func (r rsInfo) String() string { return fmt.Sprintf("%s=%d", r.name, r.replicas) }

// ownedReplicaSets returns the ReplicaSets matching selector by name.
func ownedReplicaSets(t *testing.T, s *cluster.Server, selector string) map[string]rsInfo {
	t.Helper()
	var list appsv1.ReplicaSetList
	if !getJSON(s, &list, "rs", "-l", selector) {
		t.Fatalf("kubectl get rs -l %s failed", selector)
	}
	out := map[string]rsInfo{}
	for _, rs := range list.Items {
		out[rs.Name] = rsInfo{name: rs.Name, replicas: *rs.Spec.Replicas}
	}
	return out
}

// TestLeaderElectedServer runs the server with --leader-elect: it takes
// the kube-system/bramble-server Lease, and only then do its controllers
// and scheduler act; a clean stop releases the Lease, and the restarted
// server (another identity) takes it at once.
func TestLeaderElectedServer(t *testing.T) {
	s := cluster.StartServer(t, "--leader-elect")
	holder := func() string {
		out, _, err := s.Kubectl("get", "lease", "-n", "kube-system", "bramble-server", "-o", "jsonpath={.spec.holderIdentity}")
		if err != nil {
			return ""
		}
		return out
	}
	var first string
	cluster.WaitFor(t, 20*time.Second, func() bool { first = holder(); return first != "" }, "the server to hold the lease")
	apply(t, s, webDeployment("web", 2, "v1"))
	cluster.WaitFor(t, 30*time.Second, func() bool {
		out, _, err := s.Kubectl("get", "events", "--field-selector", "reason=FailedScheduling", "-o", "name")
		return err == nil && strings.Count(out, "\n") >= 1 && len(listPods(s, "app=web")) == 2
	}, "the leader's controllers to create the pods and its scheduler to report them unschedulable (no nodes)")
	s.Stop()
	s.Start("--leader-elect")
	cluster.WaitFor(t, 10*time.Second, func() bool { h := holder(); return h != "" && h != first },
		"the restarted server to take the released lease at once")
	if out := s.MustKubectl("get", "lease", "-n", "kube-system"); !strings.Contains(out, "bramble-server") {
		t.Errorf("kubectl get lease -n kube-system: want bramble-server listed, got:\n%s", out)
	}
}
