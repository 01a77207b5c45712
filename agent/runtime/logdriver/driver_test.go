package logdriver

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// The tests below run this binary as the shim would run a driver.
	if len(os.Args) == 3 && os.Args[1] == Command {
		if err := Run(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runDriver starts the driver as containerd's shim does (stdout on fd 3,
// stderr on fd 4, readiness on fd 5), waits until it is ready, writes the
// two streams, closes them and waits for the driver to end.
func runDriver(t *testing.T, cfg string, out, errOut []byte) error {
	t.Helper()
	var pipes [3][2]*os.File
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pipes[i] = [2]*os.File{r, w}
	}
	cmd := exec.Command(os.Args[0], Command, cfg)
	cmd.ExtraFiles = []*os.File{pipes[0][0], pipes[1][0], pipes[2][1]}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*os.File{pipes[0][0], pipes[1][0], pipes[2][1]} {
		f.Close()
	}
	if _, err := io.ReadAll(pipes[2][0]); err != nil { // EOF once ready
		t.Fatalf("wait for ready: %v", err)
	}
	done := make(chan error, 2)
	go func() { _, err := pipes[0][1].Write(out); pipes[0][1].Close(); done <- err }()
	go func() { _, err := pipes[1][1].Write(errOut); pipes[1][1].Close(); done <- err }()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("container side write: got %v, want the driver to read everything", err)
		}
	}
	return cmd.Wait()
}

func TestRunWritesBothStreams(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pods", "c", "0.log")
	cfg := Config{Path: path, MaxBytes: 1 << 20, MaxFiles: 2}.Encode()
	if err := runDriver(t, cfg, []byte("one\ntwo\n"), []byte("bad\n")); err != nil {
		t.Fatalf("driver: %v", err)
	}
	got := readFile(t, path)
	for _, want := range []string{" stdout F one\n", " stdout F two\n", " stderr F bad\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("log: got %q, want a line ending %q", got, want)
		}
	}
	if strings.Index(got, "F one") > strings.Index(got, "F two") {
		t.Errorf("log: got %q, want stdout lines in order", got)
	}
}

func TestRunDrainsWhenTheLogCannotBeWritten(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("more than a pipe holds\n"), 20000)
	start := time.Now()
	// The log's directory is a regular file: every open fails.
	err := runDriver(t, Config{Path: blocker + "/0.log", MaxBytes: 1 << 20, MaxFiles: 1}.Encode(), big, big)
	if err == nil {
		t.Errorf("driver with an unwritable log: got success, want a non-zero exit")
	}
	err = runDriver(t, `{"path":"relative"}`, big, nil)
	if err == nil {
		t.Errorf("driver with a bad config: got success, want a non-zero exit")
	}
	t.Logf("both drained in %s", time.Since(start))
}
