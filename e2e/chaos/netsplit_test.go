//go:build chaos

package chaos

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestLossAndLinkCut runs a real agent in a network namespace of its own,
// joined to a server listening on the test's bridge. With 30 % of the
// namespace's packets dropped (nft numgen random), then with its link
// down, the node's pods and the ConfigMaps they reference change in a
// burst; once the network heals, the node's local store must equal the
// server's view of the node exactly. The figure is the time from healing
// to equality.
func TestLossAndLinkCut(t *testing.T) {
	t.Parallel()
	const node, ns = "pi-netsplit", "bramble-chaos-netsplit"
	br := cluster.NewBridge(t)
	netns := br.AddNamespace()
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerOn(t, br.Addr.String())
	a := cluster.StartAgentIn(t, netns, s, d, ns, "--token", cluster.JoinToken(t, s), "--node-name", node)
	a.WaitReady(t, s, node)
	c := cluster.NewClient(t, s.Kubeconfig)
	b := &burst{t: t, c: c, node: node}
	b.run("warm", 4, 0) // the node holds something before the faults
	converge(t, c, a, node, 60*time.Second)

	dropped := 0
	faults := []struct {
		name       string
		start, end func()
		hold       time.Duration
	}{
		{fmt.Sprintf("loss30-%s", pick("8s", "60s")), func() { netns.Loss(30) },
			func() { dropped = netns.Dropped(); netns.Loss(0) }, pick(8*time.Second, 60*time.Second)},
		{fmt.Sprintf("linkcut-%s", pick("10s", "56s")), netns.Cut, netns.Heal, pick(10*time.Second, 56*time.Second)},
	}
	for _, f := range faults {
		f.start()
		begin, before := time.Now(), b.changes
		b.run(f.name, pick(12, 60), f.hold)
		time.Sleep(time.Until(begin.Add(f.hold)))
		if f.name[:4] == "link" && stateDiff(t, c, a, node) == "" {
			t.Fatalf("%s: the node already holds the burst with its link down: the cut cut nothing", f.name)
		}
		f.end()
		took := converge(t, c, a, node, 90*time.Second)
		extra := ""
		if f.name[:4] == "loss" {
			if dropped == 0 {
				t.Fatalf("%s: the loss rule dropped no packet", f.name)
			}
			extra = fmt.Sprintf(" packets-dropped=%d", dropped)
		}
		figure("%s: changes=%d%s converge=%.1fs diff=0", f.name, b.changes-before, extra, took.Seconds())
	}
}

// converge waits until the node's store equals the server's view of the
// node and returns how long that took; after timeout it fails the test
// with the differences.
func converge(t *testing.T, c *cluster.Client, a *cluster.Agent, node string, timeout time.Duration) time.Duration {
	t.Helper()
	begin := time.Now()
	for {
		diff := stateDiff(t, c, a, node)
		if diff == "" {
			return time.Since(begin)
		}
		if time.Since(begin) > timeout {
			t.Fatalf("the node's state still differs from the server's %s after the fault healed:\n%s\nagent output:\n%s",
				timeout, diff, a.Output())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// burst changes what a node holds: each step creates a ConfigMap and a pod
// on the node that references it, changes the previous step's ConfigMap
// and deletes every third pod, spread over a span.
type burst struct {
	t       *testing.T
	c       *cluster.Client
	node    string
	changes int
}

func (b *burst) run(tag string, steps int, span time.Duration) {
	b.t.Helper()
	for i := range steps {
		cm, pod := fmt.Sprintf("%s-cm-%d", tag, i), fmt.Sprintf("%s-pod-%d", tag, i)
		b.do(http.MethodPost, "/api/v1/namespaces/default/configmaps", http.StatusCreated,
			fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q},"data":{"step":"%d"}}`, cm, i))
		b.do(http.MethodPost, "/api/v1/namespaces/default/pods", http.StatusCreated, fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod",
			"metadata":{"name":%q},"spec":{"nodeName":%q,"containers":[{"name":"c","image":"docker.io/library/busybox:chaos-absent",
			"imagePullPolicy":"Never","envFrom":[{"configMapRef":{"name":%q}}]}]}}`, pod, b.node, cm))
		if i > 0 {
			prev := fmt.Sprintf("%s-cm-%d", tag, i-1)
			b.do(http.MethodPatch, "/api/v1/namespaces/default/configmaps/"+prev, http.StatusOK, `{"data":{"changed":"yes"}}`)
		}
		if i%3 == 2 {
			b.do(http.MethodDelete, "/api/v1/namespaces/default/pods/"+fmt.Sprintf("%s-pod-%d", tag, i-2), http.StatusOK, "")
		}
		time.Sleep(span / time.Duration(steps))
	}
}

func (b *burst) do(method, path string, want int, body string) {
	b.t.Helper()
	ct := "application/json"
	if method == http.MethodPatch {
		ct = "application/merge-patch+json"
	}
	var raw []byte
	if body != "" {
		raw = []byte(body)
	}
	if r := b.c.Do(method, path, ct, raw); r.Code != want {
		b.t.Fatalf("%s %s: got %d %s, want %d", method, path, r.Code, r.Body, want)
	}
	b.changes++
}
