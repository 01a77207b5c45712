//go:build kubectl

package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/server/audit"
)

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: Metadata
  resources: [{group: "", resources: ["secrets"]}]
- level: RequestResponse
  resources: [{group: "", resources: ["configmaps"]}]
- level: Metadata
`

// A real server with --audit-log-path and a policy file, driven by real
// kubectl and a real node join, writes upstream's Event lines: who, what,
// the answer's code, a watch's two stages, bodies only where the policy
// asks, never a Secret's value, and the joins that succeed and fail.
func TestAuditLogWithKubectl(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is required for this test: %v", err)
	}
	dir := t.TempDir()
	logPath := filepath.Join(dir, "audit", "audit.log")
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startAudited(t, dir, AuditConfig{Path: logPath, PolicyFile: policy, MaxSizeMB: 10})
	kubectl(t, dir, "create", "secret", "generic", "s1", "--from-literal=k=topsecret-value")
	kubectl(t, dir, "create", "configmap", "cm0", "--from-literal=k=visible-value") // protobuf
	applyConfigMap(t, dir)
	kubectl(t, dir, "get", "configmaps", "--watch", "--request-timeout=2s")
	tok := s.Token
	pi1, err := nodejoin.Join(context.Background(), nodejoin.JoinConfig{ServerURL: s.URL, Token: tok, NodeName: "pi-1"})
	if err != nil {
		t.Fatalf("join pi-1: %v", err)
	}
	relist(t, s, pi1)
	bad := tok[:len(tok)-1] + "a" // the same token with a wrong secret
	if strings.HasSuffix(tok, "a") {
		bad = tok[:len(tok)-1] + "b"
	}
	if _, err := nodejoin.Join(context.Background(), nodejoin.JoinConfig{ServerURL: s.URL, Token: bad, NodeName: "pi-2"}); err == nil {
		t.Fatal("join with a wrong secret succeeded")
	}
	var events []audit.Event
	eventually(t, "the failed join's event in the log", func() bool {
		events = readEvents(t, logPath)
		return findEvent(events, func(e audit.Event) bool { return e.Annotations[joinNodeKey] == "pi-2" }) != nil
	})
	checkAuditedSecret(t, logPath, events)
	checkAuditedConfigMap(t, events)
	checkAuditedWatch(t, events)
	checkAuditedJoins(t, events, tok)
	checkAuditedRelist(t, events)
	if st, err := os.Stat(logPath); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode: got %v (%v), want 0600", st.Mode().Perm(), err)
	}
}

const joinNodeKey = "join.bramble.dev/node"

func startAudited(t *testing.T, dir string, ac AuditConfig) *Server {
	t.Helper()
	return mustStartOnFreePorts(t, Config{DataDir: dir, WriteKubeconfig: filepath.Join(dir, "kubeconfig.yaml"),
		DisableScheduler: true, Audit: ac, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// kubectl runs kubectl against the server in dir; a watch ended by its
// request timeout is not a failure.
func kubectl(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("kubectl", args...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+filepath.Join(dir, "kubeconfig.yaml"))
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(strings.Join(args, " "), "--watch") {
		t.Fatalf("kubectl %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func readEvents(t *testing.T, path string) []audit.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []audit.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var e audit.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func findEvent(events []audit.Event, match func(audit.Event) bool) *audit.Event {
	for i := range events {
		if match(events[i]) {
			return &events[i]
		}
	}
	return nil
}

func isRef(e audit.Event, verb, resource string) bool {
	return e.Verb == verb && e.ObjectRef != nil && e.ObjectRef.Resource == resource
}

// applyConfigMap makes cm1 with kubectl apply, which sends JSON.
func applyConfigMap(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("kubectl", "apply", "-f", "-")
	cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+filepath.Join(dir, "kubeconfig.yaml"))
	cmd.Stdin = strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1}\ndata: {k: visible-value}\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
}

// relist asks for pi-1's view with its certificate, as its agent does.
func relist(t *testing.T, s *Server, creds *nodejoin.Credentials) {
	t.Helper()
	tc, err := creds.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	defer client.CloseIdleConnections()
	resp, err := client.Get(s.URL + mqtt.ViewPath("pi-1"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
