//go:build kubectl

// The real kubectl against the API, the embedded broker and an agent's log
// handler. Run with: go test -tags kubectl -run Kubectl ./server/logs/
package logs_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
	"github.com/bramble-edge/bramble/server/logs"
)

func kubectl(t *testing.T, ctx context.Context, url string, args ...string) *exec.Cmd {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is required for these tests: %v", err)
	}
	home := t.TempDir()
	kc := filepath.Join(home, "kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: b\n  cluster: {server: %q, insecure-skip-tls-verify: true}\n"+
		"users:\n- name: a\n  user: {token: t}\ncontexts:\n- name: b\n  context: {cluster: b, user: a, namespace: default}\ncurrent-context: b\n", url)
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG="+kc)
	return cmd
}

func TestKubectlLogs(t *testing.T) {
	c := newCluster(t)
	n := c.addNode(t, "pi-1")
	srv := apiServer(t, logs.New(c.bus, quiet()))
	uid := createPod(t, srv, "pi-1")
	w, err := logdriver.OpenWriter(n.logPath(uid, "c", 0), 1<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, l := range []string{"one", "two", "three"} {
		w.WriteLine("stdout", false, []byte(l))
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for args, want := range map[string]string{"logs p": "one\ntwo\nthree\n", "logs p --tail=2": "two\nthree\n", "logs p -c c --tail=1": "three\n"} {
		out, err := kubectl(t, ctx, srv.URL, strings.Fields(args)...).CombinedOutput()
		if err != nil || string(out) != want {
			t.Fatalf("kubectl %s: got %q (%v), want %q", args, out, err, want)
		}
	}
	out, err := kubectl(t, ctx, srv.URL, "logs", "p", "--previous").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `previous terminated container "c" in pod "p" not found`) {
		t.Fatalf("kubectl logs --previous: got %q (%v), want a NotFound error", out, err)
	}
	follow := kubectl(t, ctx, srv.URL, "logs", "-f", "p", "--tail=1")
	stdout, _ := follow.StdoutPipe()
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	if got, err := r.ReadString('\n'); got != "three\n" {
		t.Fatalf("kubectl logs -f: got %q (%v), want %q", got, err, "three\n")
	}
	w.WriteLine("stdout", false, []byte("four"))
	if got, err := r.ReadString('\n'); got != "four\n" {
		t.Fatalf("kubectl logs -f after a new line: got %q (%v), want %q", got, err, "four\n")
	}
	_ = follow.Process.Kill()
	_ = follow.Wait()
	waitUntil(t, "the agent to end the followed stream", func() bool { return n.h.Active() == 0 })
}
