//go:build kubectl

// Tests that drive the real kubectl (1.32, through gcloud's dispatcher at
// /usr/bin/kubectl) against the handler. Run with:
//
//	go test -tags kubectl -run Kubectl ./server/
package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type kubectlEnv struct {
	*testEnv
	home, kubeconfig string
	bin              string // "" means kubectl on PATH
}

func (k *kubectlEnv) binary() string {
	if k.bin == "" {
		return "kubectl"
	}
	return k.bin
}

// lockedBuffer collects a background command's output.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newKubectlEnv(t *testing.T) *kubectlEnv {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is required for these tests: %v", err)
	}
	e := newTestEnv(t)
	home := t.TempDir()
	kc := filepath.Join(home, "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: bramble
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: admin-token}
contexts:
- name: bramble
  context: {cluster: bramble, user: admin, namespace: default}
current-context: bramble
`, e.srv.URL)
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return &kubectlEnv{testEnv: e, home: home, kubeconfig: kc}
}

// run runs kubectl and returns its combined output; wantErr says whether a
// non-zero exit is expected.
func (k *kubectlEnv) run(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.binary(), args...)
	cmd.Env = append(os.Environ(), "HOME="+k.home, "KUBECONFIG="+k.kubeconfig)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (k *kubectlEnv) ok(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := k.run(t, stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func wantContains(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Fatalf("output lacks %q:\n%s", w, out)
		}
	}
}

func TestKubectlBasics(t *testing.T) {
	k := newKubectlEnv(t)
	wantContains(t, k.ok(t, "", "version"), "Server Version: v1.32")
	wantContains(t, k.ok(t, "", "get", "--raw", "/readyz"), "ok")
	wantContains(t, k.ok(t, "", "api-resources"), "configmaps", "cm", "deployments", "deploy", "leases")
	wantContains(t, k.ok(t, "", "create", "namespace", "foo"), "namespace/foo created")
	wantContains(t, k.ok(t, "", "create", "configmap", "c1", "--from-literal=a=b"), "configmap/c1 created")
	wantContains(t, k.ok(t, "", "get", "cm"), "NAME", "DATA", "c1")
	wantContains(t, k.ok(t, "", "get", "cm", "c1", "-o", "yaml"), "a: b", "resourceVersion:")
	wantContains(t, k.ok(t, "", "label", "cm", "c1", "x=y"), "configmap/c1 labeled")
	wantContains(t, k.ok(t, "", "get", "cm", "-l", "x=y", "--show-labels"), "x=y")
	wantContains(t, k.ok(t, "", "get", "cm", "-A"), "NAMESPACE", "default")
	wantContains(t, k.ok(t, "", "delete", "cm", "c1"), `configmap "c1" deleted`)
	out, err := k.run(t, "", "delete", "cm", "c1")
	if err == nil || !strings.Contains(out, `configmaps "c1" not found`) {
		t.Fatalf("second delete: got %v %s, want NotFound", err, out)
	}
	wantContains(t, k.ok(t, "", "delete", "namespace", "foo"), `namespace "foo" deleted`)
}

const applyCM = `apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  labels: {app: x}
data:
  key: VALUE
`

func TestKubectlApply(t *testing.T) {
	k := newKubectlEnv(t)
	wantContains(t, k.ok(t, strings.Replace(applyCM, "VALUE", "one", 1), "apply", "-f", "-"), "configmap/x created")
	wantContains(t, k.ok(t, strings.Replace(applyCM, "VALUE", "two", 1), "apply", "-f", "-"), "configmap/x configured")
	wantContains(t, k.ok(t, strings.Replace(applyCM, "VALUE", "two", 1), "apply", "-f", "-"), "configmap/x unchanged")
	wantContains(t, k.ok(t, strings.Replace(applyCM, "VALUE", "three", 1), "apply", "--server-side", "-f", "-"), "serverside-applied")
	wantContains(t, k.ok(t, "", "get", "cm", "x", "-o", "jsonpath={.data.key}"), "three")
	bad := strings.Replace(applyCM, "\ndata:", "\nbogus: 1\ndata:", 1)
	out, err := k.run(t, strings.Replace(bad, "VALUE", "four", 1), "apply", "-f", "-")
	if err == nil || !strings.Contains(out, `unknown field "bogus"`) {
		t.Fatalf("apply with an unknown field: got %v %s, want a strict decoding error", err, out)
	}
}

const deployYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1
`

func TestKubectlWorkloads(t *testing.T) {
	k := newKubectlEnv(t)
	wantContains(t, k.ok(t, deployYAML, "apply", "-f", "-"), "deployment.apps/web created")
	wantContains(t, k.ok(t, "", "scale", "deploy/web", "--replicas=3"), "deployment.apps/web scaled")
	wantContains(t, k.ok(t, "", "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"), "3")
	wantContains(t, k.ok(t, "", "set", "image", "deployment/web", "web=nginx:2"), "image updated")
	wantContains(t, k.ok(t, "", "get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"), "nginx:2")
	wantContains(t, k.ok(t, "", "get", "all", "-A"), "deployment.apps/web")
	wantContains(t, k.ok(t, "", "create", "job", "j1", "--image=busybox"), "job.batch/j1 created")
	wantContains(t, k.ok(t, "", "get", "jobs"), "j1")
	wantContains(t, k.ok(t, "", "rollout", "restart", "deploy/web"), "restarted")
	wantContains(t, k.ok(t, "", "run", "p1", "--image=nginx"), "pod/p1 created")
	wantContains(t, k.ok(t, "", "get", "pods", "-o", "wide"), "READY", "STATUS", "Pending")
	wantContains(t, k.ok(t, "", "describe", "pod", "p1"), "Status:", "Pending", "QoS Class:")
	out, err := k.run(t, "", "logs", "p1")
	if err == nil || !strings.Contains(out, "does not have a host assigned") {
		t.Fatalf("logs of an unbound pod: got %v %s, want the BadRequest", err, out)
	}
	wantContains(t, k.ok(t, "", "create", "namespace", "team"), "created")
	k.ok(t, "", "create", "configmap", "c9", "-n", "team", "--from-literal=a=b")
	wantContains(t, k.ok(t, "", "delete", "namespace", "team"), `namespace "team" deleted`)
	out, _ = k.run(t, "", "get", "namespace", "team")
	wantContains(t, out, `namespaces "team" not found`)
}

func TestKubectlWatch(t *testing.T) {
	k := newKubectlEnv(t)
	k.ok(t, "", "create", "configmap", "w1", "--from-literal=a=b")
	done := make(chan string, 1)
	go func() {
		out, _ := k.run(t, "", "get", "cm", "-w", "--request-timeout=4s")
		done <- out
	}()
	time.Sleep(1500 * time.Millisecond)
	k.ok(t, "", "create", "configmap", "w2", "--from-literal=a=b")
	out := <-done
	wantContains(t, out, "w1", "w2")
	if strings.Count(out, "NAME") != 1 {
		t.Fatalf("got %d headers, want 1:\n%s", strings.Count(out, "NAME"), out)
	}
}
