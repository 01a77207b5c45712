package e2e

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// testExecTTY runs kubectl exec -it under a pseudo-terminal: the shell
// sees the terminal's size, then its new size after a resize, and
// kubectl exits with the shell's code.
func testExecTTY(t *testing.T, s *cluster.Server, bin string) {
	p := cluster.OpenPTY(t, 30, 100)
	cmd := exec.Command(bin, "-n", "work", "exec", "-it", "box", "--", "sh")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+s.Kubeconfig, "HOME="+s.Home, "TERM=dumb")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.Slave, p.Slave, p.Slave
	cmd.SysProcAttr = p.Attrs()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	}()
	p.Type(t, "stty size\r")
	at, ok := p.WaitFor(t, "30 100", 0, 30*time.Second)
	if !ok {
		t.Fatalf("stty size under a 30x100 terminal: got %q, want 30 100", p.Output())
	}
	p.Resize(t, 45, 120)
	seen := false
	for i := 0; i < 20 && !seen; i++ { // the resize and the typing race: ask again until it lands
		p.Type(t, "stty size\r")
		at, seen = p.WaitFor(t, "45 120", at, 500*time.Millisecond)
	}
	if !seen {
		t.Fatalf("stty size after resizing to 45x120: got %q", p.Output())
	}
	p.Type(t, "exit 7\r")
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 7 {
			t.Fatalf("kubectl exec -it after exit 7: got %v, want exit code 7; terminal: %q", err, p.Output())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("kubectl exec -it still runs 30s after exit 7; terminal: %q", p.Output())
	}
}
