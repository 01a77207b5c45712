package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

const debugImage = "--image=docker.io/library/busybox:e2e-agent"

// testDebug drives kubectl debug against the running pod web (httpd on
// 8080): an ephemeral container targeting web with each of
// attachVersions, the node's debugging pod, and a copy of the pod.
func testDebug(t *testing.T, s *cluster.Server, node string) {
	for _, v := range attachVersions {
		t.Run(v, func(t *testing.T) { testDebugEphemeral(t, s, kubectlBin(v), "dbg-"+strings.ReplaceAll(v, ".", "")) })
	}
	t.Run("volume", func(t *testing.T) { testDebugVolume(t, s) })
	t.Run("node", func(t *testing.T) { testDebugNode(t, s, node) })
	t.Run("copy", func(t *testing.T) { testDebugCopy(t, s) })
}

// testDebugEphemeral: kubectl debug -it under a pty; the debugger reaches
// web's port on localhost (the pod's network) and sees httpd (web's PID
// namespace); its exit ends kubectl and shows in ephemeralContainerStatuses
// and kubectl logs.
func testDebugEphemeral(t *testing.T, s *cluster.Server, bin, name string) {
	p, done := startUnderPTY(t, s, bin, "debug", "pod/web", "-it", debugImage, "--image-pull-policy=Never",
		"--target=web", "-c", name, "--", "sh")
	at := typeUntil(t, p, "wget -q --spider http://127.0.0.1:8080/big && echo NET-$((6*7))\r", "NET-42", 0)
	typeUntil(t, p, "ps -o pid,args | grep -c '[h]ttpd -f' | sed s/^/HTTPD-/\r", "HTTPD-1", at)
	p.Type(t, "exit 0\r")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("kubectl debug -it after the shell's exit: %v; terminal: %q", err, p.Output())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("kubectl debug -it still runs 30s after the shell's exit; terminal: %q", p.Output())
	}
	path := `{.status.ephemeralContainerStatuses[?(@.name=="` + name + `")]`
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, _, err := s.Kubectl("get", "pod", "web", "-n", "work", "-o", "jsonpath="+path+".state.terminated.exitCode} "+
			path+".containerID} "+path+".imageID}")
		f := strings.Fields(out)
		if err == nil && len(f) == 3 && f[0] == "0" && strings.HasPrefix(f[1], "containerd://") && f[2] != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ephemeral container %s: got status %q (%v), want exit code 0, containerID, imageID", name, out, err)
		}
	}
	out, _, err := s.Kubectl("logs", "-n", "work", "web", "-c", name)
	if err != nil || !strings.Contains(out, "NET-42") {
		t.Fatalf("kubectl logs -c %s: %v; got %q, want the session", name, err, out)
	}
}

// testDebugNode: kubectl debug node/NAME runs a pod in the host's
// namespaces with the host's root at /host.
func testDebugNode(t *testing.T, s *cluster.Server, node string) {
	out, stderr, err := s.Kubectl("debug", "-n", "work", "node/"+node, debugImage, "--image-pull-policy=Never",
		"--", "sh", "-c", "cat /proc/1/comm; test -d /host/proc/1 && echo HOST-ROOT")
	if err != nil {
		t.Fatalf("kubectl debug node/%s: %v: %s", node, err, stderr)
	}
	pod := ""
	for _, f := range strings.Fields(out + stderr) {
		if strings.HasPrefix(f, "node-debugger-") {
			pod = f
		}
	}
	if pod == "" {
		t.Fatalf("kubectl debug node/%s named no pod: %q %q", node, out, stderr)
	}
	comm, err := os.ReadFile("/proc/1/comm")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(comm)) + "\nHOST-ROOT"
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err = s.Kubectl("logs", "-n", "work", pod)
		return err == nil && strings.TrimSpace(out) == want
	}, "the node's debugging pod to see the host's PID 1 and root")
	s.Kubectl("delete", "pod", "-n", "work", pod, "--wait=false")
}

// testDebugCopy: kubectl debug --copy-to makes a copy of web with a
// debugging container added, on the same node.
func testDebugCopy(t *testing.T, s *cluster.Server) {
	if _, stderr, err := s.Kubectl("debug", "-n", "work", "web", "--copy-to=web-copy", "--same-node", debugImage,
		"--image-pull-policy=Never", "-c", "dbg", "--", "sh", "-c", "echo COPY-OK; sleep 3600"); err != nil {
		t.Fatalf("kubectl debug --copy-to: %v: %s", err, stderr)
	}
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, err := s.Kubectl("logs", "-n", "work", "web-copy", "-c", "dbg")
		return err == nil && strings.Contains(out, "COPY-OK")
	}, "the copy's debugging container")
	s.Kubectl("delete", "pod", "-n", "work", "web-copy", "--wait=false")
}

// testDebugVolume: an ephemeral container mounts one of the pod's volumes
// (its service account token's, with kubectl 1.33's --custom).
func testDebugVolume(t *testing.T, s *cluster.Server) {
	vol, _, err := s.Kubectl("get", "pod", "web", "-n", "work", "-o", "jsonpath={.spec.volumes[0].name}")
	if err != nil || vol == "" {
		t.Fatalf("web's first volume: %v, got %q", err, vol)
	}
	custom := filepath.Join(t.TempDir(), "custom.json")
	if err := os.WriteFile(custom, []byte(`{"volumeMounts":[{"name":"`+vol+`","mountPath":"/sa"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := s.KubectlWith(kubectlBin("1.33"), s.Kubeconfig, "", "-n", "work", "debug", "pod/web", debugImage,
		"--image-pull-policy=Never", "-c", "dbg-vol", "--custom="+custom, "--", "sh", "-c", "echo ns-$(cat /sa/namespace)"); err != nil {
		t.Fatalf("kubectl debug --custom: %v: %s", err, stderr)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, stderr, err := s.Kubectl("logs", "-n", "work", "web", "-c", "dbg-vol")
		if err == nil && out == "ns-work\n" {
			break
		}
		if time.Now().After(deadline) {
			st, _, _ := s.Kubectl("get", "pod", "web", "-n", "work", "-o", "jsonpath={.status.ephemeralContainerStatuses}")
			t.Fatalf("kubectl logs -c dbg-vol: got %q, %v %s; want ns-work, read from volume %s; statuses %s", out, err, stderr, vol, st)
		}
	}
}
