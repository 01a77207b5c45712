package runtime

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while a stream writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until b holds want.
func waitFor(t *testing.T, b *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(b.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("output %q never held %q", b.String(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	return string(b)
}

// TestAttachStdinOnce attaches to a container started with stdin and
// stdinOnce: the client's line reaches it, its answer reaches the client
// and the log, and the client's detach closes the container's stdin.
func TestAttachStdinOnce(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logPath := filepath.Join(t.TempDir(), "0.log")
	script := `echo ready; read x; echo got $x; echo to-stderr >&2; if read y; then echo more; else echo eof; fi`
	if err := rt.RunContainer(ctx, ContainerSpec{ID: "once", Image: busybox, Command: []string{"sh", "-c", script},
		LogPath: logPath, Stdin: true, StdinOnce: true}); err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	pr, pw := io.Pipe()
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() { done <- rt.AttachStream(ctx, "once", ExecStreams{Stdin: pr, Stdout: &out, Stderr: &errOut}) }()
	if _, err := pw.Write([]byte("hello\n")); err != nil {
		t.Fatalf("write stdin: %v", err)
	}
	waitFor(t, &out, "got hello\n")
	waitFor(t, &errOut, "to-stderr\n")
	pw.Close() // the client detaches
	if err := <-done; err != nil {
		t.Fatalf("AttachStream: %v", err)
	}
	waitExited(t, rt, "once")
	log := readLog(t, logPath)
	for _, want := range []string{" stdout F ready\n", " stdout F got hello\n", " stderr F to-stderr\n", " stdout F eof\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("log %q lacks %q", log, want)
		}
	}
}

// TestAttachTTY attaches to a shell with a terminal: the size the client
// sends reaches the shell, its output the client, and the shell's exit
// ends the attach.
func TestAttachTTY(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logPath := filepath.Join(t.TempDir(), "0.log")
	if err := rt.RunContainer(ctx, ContainerSpec{ID: "tty", Image: busybox, Command: []string{"sh"},
		LogPath: logPath, Stdin: true, TTY: true}); err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	sizes := make(chan TermSize, 1)
	sizes <- TermSize{Width: 101, Height: 31}
	pr, pw := io.Pipe()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- rt.AttachStream(ctx, "tty", ExecStreams{Stdin: pr, Stdout: &out, TTY: true, Resize: sizes})
	}()
	time.Sleep(300 * time.Millisecond) // the size reaches the terminal first
	_, _ = pw.Write([]byte("stty size; echo $((6*7))x\n"))
	waitFor(t, &out, "31 101")
	waitFor(t, &out, "42x")
	_, _ = pw.Write([]byte("exit\n"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("AttachStream: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the shell's exit did not end the attach")
	}
	pw.Close()
	if log := readLog(t, logPath); !strings.Contains(log, "42x") {
		t.Errorf("log %q lacks the shell's output", log)
	}
}

// TestAttachRefusedWithoutConsole: a container started without stdin or
// tty has nothing to attach to.
func TestAttachRefusedWithoutConsole(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := rt.RunContainer(ctx, ContainerSpec{ID: "plain", Image: busybox, Command: []string{"sleep", "60"}}); err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	if rt.HasConsole("plain") {
		t.Fatal("HasConsole: true for a container without stdin or tty")
	}
	if err := rt.AttachStream(ctx, "plain", ExecStreams{Stdout: io.Discard}); !errors.Is(err, ErrNoConsole) {
		t.Fatalf("AttachStream: got %v, want ErrNoConsole", err)
	}
}

func waitExited(t *testing.T, rt *Containerd, id string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := rt.ContainerStatus(context.Background(), id)
		if err == nil && st.State == StateExited {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("container %s did not exit: %+v %v", id, st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestConsoleTakenBackAfterRestart: an agent that starts after the one
// that made a container with stdin reopens its FIFOs: it can be attached
// to and its output reaches its log again.
func TestConsoleTakenBackAfterRestart(t *testing.T) {
	ns := testNamespace(t)
	rt := newRuntime(t, ns)
	importBusybox(t, rt, busybox, nil)
	logPath := filepath.Join(t.TempDir(), "0.log")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+strings.Join([]string{testDaemon(t).Address, ns, "held", logPath, "console"}, ","))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper agent: %v\n%s", err, out)
	}
	if rt.HasConsole("held") {
		t.Fatal("a runtime started before the container holds its console")
	}
	next := newRuntime(t, ns) // the restarted agent
	if !next.HasConsole("held") {
		t.Fatal("the restarted agent did not take the console back")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pr, pw := io.Pipe()
	defer pw.Close()
	var out syncBuffer
	go func() { _ = next.AttachStream(ctx, "held", ExecStreams{Stdin: pr, Stdout: &out}) }()
	_, _ = pw.Write([]byte("again\n"))
	waitFor(t, &out, "got-again\n")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(readLog(t, logPath), " stdout F got-again\n") {
		if time.Now().After(deadline) {
			t.Fatalf("log %q lacks the output after the restart", readLog(t, logPath))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
