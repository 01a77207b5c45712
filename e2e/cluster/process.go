package cluster

import (
	"bytes"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// syncBuffer collects a child process's output while tests read it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Background is a kubectl running in the background (a watch).
type Background struct {
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{}
}

// Out is what it printed so far (stdout and stderr).
func (b *Background) Out() string { return b.out.String() }

// Stop kills it and waits.
func (b *Background) Stop() {
	_ = b.cmd.Process.Kill()
	<-b.done
}

// StartKubectl runs kubectl in the background until the test ends.
func StartKubectl(t testing.TB, s *Server, args ...string) *Background {
	t.Helper()
	return start(t, exec.Command(KubectlPath, args...), "KUBECONFIG="+s.Kubeconfig, "HOME="+s.Home)
}

// StartCommand runs any program in the background until the test ends.
func StartCommand(t testing.TB, name string, args ...string) *Background {
	t.Helper()
	return start(t, exec.Command(name, args...))
}

func start(t testing.TB, cmd *exec.Cmd, env ...string) *Background {
	t.Helper()
	b := &Background{cmd: cmd, done: make(chan struct{})}
	b.cmd.Env = append(os.Environ(), env...)
	b.cmd.Stdout, b.cmd.Stderr = &b.out, &b.out
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = b.cmd.Wait(); close(b.done) }()
	t.Cleanup(func() {
		select {
		case <-b.done:
		default:
			b.Stop()
		}
	})
	return b
}

// WaitFor polls cond until it holds or the timeout passes. It is a
// synchronisation point, not a performance assertion.
func WaitFor(t testing.TB, timeout time.Duration, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// MustRun runs a program to completion and returns its standard output;
// a non-zero exit fails the test with what it printed.
func MustRun(t testing.TB, name string, args ...string) string {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s%s", name, args, err, out, stderr.String())
	}
	return string(out)
}
