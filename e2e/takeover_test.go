package e2e

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/join"
)

// TestNodeTakeover runs a real agent and, with the same join token, an
// impostor asking for the agent's node name: it is refused and gets no
// certificate while the agent keeps working; the agent re-joins with its
// own password after losing its certificate; a machine that lost its data
// dir is told what to do, and takes the name once the Node is deleted.
func TestNodeTakeover(t *testing.T) {
	const node, ns = "pi-takeover", "bramble-e2e-takeover"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t)
	token := cluster.JoinToken(t, s)
	a := cluster.StartAgent(t, s, d, ns, "--token", token, "--node-name", node)
	a.WaitReady(t, s, node)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fake, err := join.Join(ctx, join.JoinConfig{ServerURL: s.URL(), Token: token, NodeName: node})
	if fake != nil || !errors.Is(err, join.ErrNodePassword) || !strings.Contains(err.Error(), "kubectl delete node "+node) {
		t.Fatalf("impostor join as %s: got credentials %t, error %v; want ErrNodePassword naming kubectl delete node", node, fake != nil, err)
	}
	agentAPI := func() int {
		creds, err := join.LoadCredentials(filepath.Join(a.DataDir, "agent"))
		if err != nil {
			t.Fatal(err)
		}
		tc, err := creds.TLSConfig()
		if err != nil {
			t.Fatal(err)
		}
		return cluster.NewClientTLS(t, s.URL(), tc).Do(http.MethodGet, "/api/v1/nodes/"+node, "", nil).Code
	}
	if code := agentAPI(); code != http.StatusOK {
		t.Fatalf("the real agent's certificate after the impostor's attempt: got %d, want 200", code)
	}

	// The agent loses its certificate but keeps its password: it joins
	// again on restart.
	a.Stop(t)
	for _, f := range []string{join.CertFile, join.KeyFile} {
		if err := os.Remove(filepath.Join(a.DataDir, "agent", f)); err != nil {
			t.Fatal(err)
		}
	}
	appendConfig(t, a.DataDir, "token: "+token)
	a.Restart(t)
	a.WaitReady(t, s, node)
	if code := agentAPI(); code != http.StatusOK {
		t.Fatalf("the re-joined agent at the API: got %d, want 200", code)
	}

	// A machine that lost its data dir asks for the name: refused with
	// what to do, then joins once the admin deletes the Node.
	a.Stop(t)
	b := cluster.StartAgent(t, s, d, ns, "--token", token, "--node-name", node)
	cluster.WaitFor(t, 30*time.Second, func() bool {
		return strings.Contains(b.Output(), "already joined with another node password") &&
			strings.Contains(b.Output(), "kubectl delete node "+node)
	}, "the agent that lost its data dir to say its name is taken and what to do")
	s.MustKubectl("delete", "node", node)
	b.WaitReady(t, s, node)
}

func appendConfig(t *testing.T, dataDir, line string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dataDir, "config.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}
