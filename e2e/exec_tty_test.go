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
	// The agent starts the shell with the size kubectl sends first when
	// it comes within a second; on a loaded machine it may come later
	// and land as a resize, so the first answer may be stty's error.
	at := typeUntil(t, p, "stty size\r", "30 100", 0)
	p.Resize(t, 45, 120)
	typeUntil(t, p, "stty size\r", "45 120", at) // the resize and the typing race
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
