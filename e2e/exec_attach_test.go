package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// attachVersions: the oldest kubectl (SPDY) and the newest (WebSocket).
var attachVersions = []string{"1.27", "1.33"}

func ttyPod(name, node string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %[1]s, namespace: work}
spec:
  nodeName: %[2]s
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: sh
    image: docker.io/library/busybox:e2e-agent
    imagePullPolicy: Never
    command: ["sh"]
    stdin: true
    tty: true
`, name, node)
}

// testAttach drives kubectl attach -it and kubectl run -it --rm under a
// pseudo-terminal with each of attachVersions.
func testAttach(t *testing.T, s *cluster.Server, node string) {
	for _, v := range attachVersions {
		name := "tty-" + strings.ReplaceAll(v, ".", "")
		if _, stderr, err := s.Apply(ttyPod(name, node)); err != nil {
			t.Fatalf("kubectl apply: %v: %s", err, stderr)
		}
		cluster.WaitFor(t, 60*time.Second, func() bool {
			out, _, err := s.Kubectl("get", "pod", name, "-n", "work", "-o", "jsonpath={.status.phase}")
			return err == nil && out == "Running"
		}, "pod "+name+" to run")
		t.Run(v, func(t *testing.T) {
			testAttachTTY(t, s, kubectlBin(v), name)
			testRunRm(t, s, kubectlBin(v), node, "run-"+strings.ReplaceAll(v, ".", ""))
		})
	}
}

// startUnderPTY starts kubectl args with a 30x100 terminal; the returned
// channel gives its end.
func startUnderPTY(t *testing.T, s *cluster.Server, bin string, args ...string) (*cluster.PTY, <-chan error) {
	p := cluster.OpenPTY(t, 30, 100)
	cmd := exec.Command(bin, append([]string{"-n", "work"}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+s.Kubeconfig, "HOME="+s.Home, "TERM=dumb")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Slave, p.Slave, p.Slave
	cmd.SysProcAttr = p.Attrs()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	return p, done
}

// typeUntil types line until the terminal shows want after offset.
func typeUntil(t *testing.T, p *cluster.PTY, line, want string, offset int) int {
	t.Helper()
	for i := 0; i < 30; i++ { // the first lines may beat the attach: type again
		p.Type(t, line)
		if at, ok := p.WaitFor(t, want, offset, time.Second); ok {
			return at
		}
	}
	t.Fatalf("typed %q: the terminal never showed %q: %q", line, want, p.Output())
	return 0
}

// testAttachTTY attaches to a shell started with stdin and tty: a
// command's output, a resize, the shell's exit ending kubectl, and the
// session still in kubectl logs.
func testAttachTTY(t *testing.T, s *cluster.Server, bin, pod string) {
	p, done := startUnderPTY(t, s, bin, "attach", "-it", pod)
	at := typeUntil(t, p, "echo $((6*7))x\r", "42x", 0)
	p.Resize(t, 45, 120)
	typeUntil(t, p, "stty size\r", "45 120", at)
	p.Type(t, "exit 0\r")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("kubectl attach -it after the shell's exit: %v; terminal: %q", err, p.Output())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("kubectl attach -it still runs 30s after the shell's exit; terminal: %q", p.Output())
	}
	cluster.WaitFor(t, 30*time.Second, func() bool {
		out, _, err := s.Kubectl("logs", "-n", "work", pod)
		return err == nil && strings.Contains(out, "42x")
	}, "the attached session in kubectl logs")
}

// testRunRm: kubectl run -it --rm with a container reading one line.
func testRunRm(t *testing.T, s *cluster.Server, bin, node, pod string) {
	p, done := startUnderPTY(t, s, bin, "run", pod, "-it", "--rm", "--restart=Never",
		"--image=docker.io/library/busybox:e2e-agent", "--image-pull-policy=Never",
		`--overrides={"apiVersion":"v1","spec":{"nodeName":"`+node+`","terminationGracePeriodSeconds":1}}`,
		"--", "sh", "-c", "read x; echo got-$x")
	if _, ok := p.WaitFor(t, "try pressing enter", 0, 60*time.Second); !ok {
		t.Fatalf("kubectl run -it never attached: %q", p.Output())
	}
	p.Type(t, "hello\r")
	if _, ok := p.WaitFor(t, "got-hello", 0, 30*time.Second); !ok {
		t.Fatalf("kubectl run -it: the container's answer never came: %q", p.Output())
	}
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("kubectl run -it --rm: %v", err)
		}
		if err != nil {
			t.Fatalf("kubectl run -it --rm exited %d; terminal: %q", exit.ExitCode(), p.Output())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("kubectl run -it --rm still runs 60s after the container's exit; terminal: %q", p.Output())
	}
	cluster.WaitFor(t, 30*time.Second, func() bool {
		_, errOut, err := s.Kubectl("get", "pod", "-n", "work", pod)
		return err != nil && strings.Contains(errOut, "NotFound")
	}, "kubectl run --rm to delete the pod")
}
