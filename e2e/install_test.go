//go:build install

package e2e

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestInstall is the one-line install of bramble on two Debian 12
// machines booted with systemd (hack/packaging-test.sh builds the release
// and the root, and runs it): install.sh downloads the server's full build
// from a release served on the test's bridge, checks its SHA-256 and
// starts bramble.service, whose kubeconfig shows the node Ready; the
// second machine installs the agent airgapped (the agent-only build, the
// log driver and an image tarball put there by hand) with the server's
// token, joins Ready and runs a pod from the tarball; re-running install.sh
// with a newer release upgrades both, the agent by download, without
// losing objects or the running container; the agent switches to the full
// build with INSTALL_BRAMBLE_FULL=true and back without it, and gets the
// full build from a release without bramble-agent-ARCH; the uninstall
// scripts leave no unit, binary or data.
func TestInstall(t *testing.T) {
	release, next, base := os.Getenv("BRAMBLE_RELEASE_DIR"), os.Getenv("BRAMBLE_RELEASE_NEXT_DIR"), os.Getenv("BRAMBLE_DEBIAN_ROOT")
	if release == "" || next == "" || base == "" {
		t.Fatal("run through hack/packaging-test.sh: it sets BRAMBLE_RELEASE_DIR, BRAMBLE_RELEASE_NEXT_DIR and BRAMBLE_DEBIAN_ROOT")
	}
	setupBridge(t)
	serve := releaseServer(t)
	url := serve("/", release)
	server := bootMachine(t, base, "bramble-server", "10.213.0.2")
	agent := bootMachine(t, base, "bramble-edge1", "10.213.0.3")

	s := installServer(t, server, url)
	wantBuild(t, server, full)
	installAgent(t, agent, server, release, s)
	wantBuild(t, agent, agentOnly)
	mustKubectl(t, s, "create", "configmap", "survives", "--from-literal=k=v")

	nextURL := serve("/next/", next)
	upgrade(t, server, "bramble", full, func() { runServerInstall(t, server, nextURL) })
	waitNodeReady(t, s, "bramble-server")
	tasks := runningTasks(t, agent)
	upgrade(t, agent, "bramble-agent", full, func() { runAgentInstall(t, agent, server, nextURL, "INSTALL_BRAMBLE_FULL=true") })
	waitNodeReady(t, s, "bramble-edge1")
	sameTasks(t, agent, tasks, "the agent's upgrade to the full build")
	upgrade(t, agent, "bramble-agent", agentOnly, func() { runAgentInstall(t, agent, server, nextURL) })
	waitNodeReady(t, s, "bramble-edge1")
	sameTasks(t, agent, tasks, "the agent's install of the agent-only build")
	// A release from before the agent-only build: the agent takes the full one.
	oldURL := serve("/old/", withoutAgentBuild(t, next))
	upgrade(t, agent, "bramble-agent", full, func() {
		if out := runAgentInstall(t, agent, server, oldURL); !strings.Contains(out, "has no bramble-agent-amd64") {
			t.Errorf("agent install from a release without bramble-agent-amd64: no note of the fallback in\n%s", out)
		}
	})
	waitNodeReady(t, s, "bramble-edge1")
	sameTasks(t, agent, tasks, "the switch to the full build")
	if out := mustKubectl(t, s, "get", "configmap", "survives", "-o", "jsonpath={.data.k}"); out != "v" {
		t.Errorf("configmap after the upgrade: got %q, want v", out)
	}
	waitPodRunning(t, s, agent, "hello")

	uninstall(t, agent, "bramble-agent")
	uninstall(t, server, "bramble")
}

// releaseServer serves release folders over HTTP on the bridge; it returns
// a function that mounts a folder under a path and gives its URL.
func releaseServer(t *testing.T) func(path, dir string) string {
	t.Helper()
	l, err := net.Listen("tcp", bridgeIP+":0")
	if err != nil {
		t.Fatalf("listen on the bridge: %v", err)
	}
	mux := http.NewServeMux()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return func(path, dir string) string {
		mux.Handle(path, http.StripPrefix(strings.TrimSuffix(path, "/"), http.FileServer(http.Dir(dir))))
		return "http://" + l.Addr().String() + strings.TrimSuffix(path, "/")
	}
}

func installServer(t *testing.T, m *machine, url string) *cluster.Server {
	t.Helper()
	runServerInstall(t, m, url)
	if state := strings.TrimSpace(m.mustSh("systemctl is-active bramble")); state != "active" {
		t.Fatalf("systemctl is-active bramble: got %s, want active", state)
	}
	s := kubectlFor(t, m)
	waitNodeReady(t, s, "bramble-server")
	if out := mustKubectl(t, s, "get", "node", "bramble-server", "-o", "jsonpath={.metadata.labels.bramble\\.test/installed}"); out != "yes" {
		t.Errorf("label from the installer's flags: got %q, want yes", out)
	}
	return s
}

// runServerInstall is the one-line install from the release at url.
func runServerInstall(t *testing.T, m *machine, url string) {
	t.Helper()
	out := m.mustSh("curl -sfL "+url+"/install.sh | sh -s - --node-label bramble.test/installed=yes",
		"INSTALL_BRAMBLE_DOWNLOAD_URL="+url, "INSTALL_BRAMBLE_EXEC=--tls-san "+m.ip+" --node-ip "+m.ip,
		"BRAMBLE_NODE_NAME=bramble-server")
	t.Logf("server install:\n%s", out)
}

// kubectlFor points the harness's kubectl at the machine's API through
// the kubeconfig install.sh's server wrote, with the machine's address.
func kubectlFor(t *testing.T, m *machine) *cluster.Server {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(m.root, "etc/bramble/bramble.yaml"))
	if err != nil {
		t.Fatalf("the server wrote no kubeconfig at /etc/bramble/bramble.yaml: %v", err)
	}
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	body := strings.Replace(string(raw), "https://127.0.0.1:6443", "https://"+m.ip+":6443", 1)
	if err := os.WriteFile(kc, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return &cluster.Server{Kubeconfig: kc, Home: dir}
}

// installAgent puts the agent-only build, install.sh and a busybox image
// tarball on the machine by hand (airgap), installs the agent and runs a
// pod.
func installAgent(t *testing.T, m, server *machine, release string, s *cluster.Server) {
	t.Helper()
	placeBinaries(t, m, release, "bramble-agent-amd64")
	img, err := runtimetest.Busybox("docker.io/library/busybox:install-e2e", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(m.root, "var/lib/bramble/agent/images"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := runtimetest.WriteOCIArchive(filepath.Join(m.root, "var/lib/bramble/agent/images/busybox.tar"), img); err != nil {
		t.Fatal(err)
	}
	runAgentInstall(t, m, server, "")
	if state := strings.TrimSpace(m.mustSh("systemctl is-active bramble-agent")); state != "active" {
		t.Fatalf("systemctl is-active bramble-agent: got %s, want active", state)
	}
	waitNodeReady(t, s, "bramble-edge1")
	if _, errOut, err := s.Apply(helloPod); err != nil {
		t.Fatalf("apply pod: %v\n%s", err, errOut)
	}
	waitPodRunning(t, s, m, "hello")
}

// runAgentInstall installs an agent joining server with its default
// token: the one-line install from the release at url, or with url empty,
// install.sh and the binaries put on the machine by hand (airgap); extra
// is more of install.sh's environment. It returns install.sh's output.
func runAgentInstall(t *testing.T, m, server *machine, url string, extra ...string) string {
	t.Helper()
	token, err := os.ReadFile(filepath.Join(server.root, "var/lib/bramble/server/token"))
	if err != nil {
		t.Fatalf("the server's join token: %v", err)
	}
	env := append([]string{"BRAMBLE_URL=https://" + server.ip + ":6443", "BRAMBLE_TOKEN=" + strings.TrimSpace(string(token)),
		"BRAMBLE_NODE_NAME=bramble-edge1"}, extra...)
	script := "sh /root/install.sh --node-ip " + m.ip
	if url == "" {
		env = append(env, "INSTALL_BRAMBLE_SKIP_DOWNLOAD=true")
	} else {
		env = append(env, "INSTALL_BRAMBLE_DOWNLOAD_URL="+url)
		script = "curl -sfL " + url + "/install.sh | sh -s - --node-ip " + m.ip
	}
	out := m.mustSh(script, env...)
	t.Logf("agent install:\n%s", out)
	return out
}

const helloPod = `apiVersion: v1
kind: Pod
metadata: {name: hello, namespace: default}
spec:
  nodeName: bramble-edge1
  containers:
  - name: c
    image: docker.io/library/busybox:install-e2e
    imagePullPolicy: Never
    command: ["sh", "-c", "echo hello from the agent; sleep 3600"]
`

// waitPodRunning waits for the pod on the agent machine m; on a timeout
// it shows the pod and the agent's log.
func waitPodRunning(t *testing.T, s *cluster.Server, m *machine, pod string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		out, _, err := s.Kubectl("get", "pod", pod, "-o", "jsonpath={.status.phase}")
		if err == nil && out == "Running" {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	desc, _, _ := s.Kubectl("describe", "pod", pod)
	journal, _ := m.sh("journalctl -u bramble-agent -n 40 --no-pager")
	t.Fatalf("pod %s not Running after 90s:\n%s\nagent log:\n%s", pod, desc, journal)
}
