//go:build chaos

package chaos

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/tmpfstest"
)

// TestAgentDiskFull runs a real agent whose data dir is a small tmpfs and
// fills it; pods then bound to the node cannot be stored there, and must be
// reported Pending with reason NodeDiskFull (not left silently Pending).
// Once space is freed the node's state must converge to the server's
// exactly, without restarting the agent.
func TestAgentDiskFull(t *testing.T) {
	t.Parallel()
	const node, ns = "pi-diskfull", "bramble-chaos-diskfull"
	dir := tmpfstest.Mount(t, "8m")
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t)
	a := cluster.StartAgentWithDataDir(t, dir, s, d, ns, "--token", cluster.JoinToken(t, s), "--node-name", node)
	a.WaitReady(t, s, node)
	c := cluster.NewClient(t, s.Kubeconfig)
	b := &burst{t: t, c: c, node: node}
	b.run("before", 3, 0)
	converge(t, c, a, node, 60*time.Second)

	ballast := tmpfstest.Fill(t, dir)
	b.run("full", pick(6, 30), 0)
	var held []string
	cluster.WaitFor(t, 60*time.Second, func() bool {
		held = podsWithReason(t, c, node, "NodeDiskFull")
		return len(held) > 0
	}, "a pod the full node cannot store to be reported Pending with reason NodeDiskFull")
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	took := converge(t, c, a, node, 90*time.Second)
	figure("diskfull-agent: changes=%d held-back=%d reason=NodeDiskFull converge=%s diff=0 after freeing, no restart",
		b.changes, len(held), took.Round(time.Millisecond))
}

// podsWithReason names the pods on node whose status has reason.
func podsWithReason(t *testing.T, c *cluster.Client, node, reason string) []string {
	t.Helper()
	r := c.Do(http.MethodGet, "/api/v1/pods?fieldSelector=spec.nodeName%3D"+node, "", nil)
	var list struct {
		Items []struct {
			Metadata struct{ Name string }
			Status   struct{ Phase, Reason string }
		}
	}
	if err := json.Unmarshal(r.Body, &list); err != nil {
		t.Fatalf("list pods: %d %s: %v", r.Code, r.Body, err)
	}
	var out []string
	for _, p := range list.Items {
		if p.Status.Reason == reason {
			out = append(out, fmt.Sprintf("%s (%s)", p.Metadata.Name, p.Status.Phase))
		}
	}
	return out
}
