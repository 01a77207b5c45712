package checkconfig

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
)

// TestContainerdCheck talks to a real containerd, to a socket that is not
// containerd, and to no socket at all.
func TestContainerdCheck(t *testing.T) {
	ctx := context.Background()
	d, err := runtimetest.StartContainerd(ctx, t.TempDir())
	if err != nil {
		t.Fatalf("start containerd: %v", err)
	}
	t.Cleanup(func() { d.Stop() })
	if c := checkContainerd(ctx, d.Address); c.Status != OK || !strings.HasPrefix(c.Message, "containerd 1.") {
		t.Errorf("real containerd: got %s %q, want ok and its version", c.Status, c.Message)
	}

	other := filepath.Join(t.TempDir(), "other.sock")
	ln, err := net.Listen("unix", other)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
			conn.Close()
		}
	}()
	if c := checkContainerd(ctx, other); c.Status != Fail || !strings.Contains(c.Message, "does not answer as containerd") {
		t.Errorf("not containerd: got %s %q, want fail", c.Status, c.Message)
	}

	missing := filepath.Join(t.TempDir(), "none.sock")
	if c := checkContainerd(ctx, missing); c.Status != Fail || !strings.Contains(c.Message, "--containerd-socket") {
		t.Errorf("no socket: got %s %q, want fail naming --containerd-socket", c.Status, c.Message)
	}
}

func TestBinariesCheck(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	write := func(dir, name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "runc", 0o644) // not executable: skipped
	write(b, "runc", 0o755)
	os.Mkdir(filepath.Join(a, "containerd-shim-runc-v2"), 0o755) // a directory: skipped
	got := checkBinaries(a + "::" + b)
	if got[0].Status != OK || got[0].Message != filepath.Join(b, "runc") {
		t.Errorf("runc: got %s %q, want ok %s", got[0].Status, got[0].Message, filepath.Join(b, "runc"))
	}
	if got[1].Status != Fail || !strings.Contains(got[1].Message, "apt-get install containerd") {
		t.Errorf("shim: got %s %q, want fail with the package to install", got[1].Status, got[1].Message)
	}
}

func TestDataDirAndRootChecks(t *testing.T) {
	dir := t.TempDir()
	if c := checkDataDir(dir); c.Status == Fail || !strings.Contains(c.Message, "MiB free") {
		t.Errorf("existing dir: got %s %q, want ok or warn with the free space", c.Status, c.Message)
	}
	if c := checkDataDir(filepath.Join(dir, "a/b")); c.Status == Fail || !strings.Contains(c.Message, "will be created") {
		t.Errorf("new dir: got %s %q, want 'will be created'", c.Status, c.Message)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if c := checkDataDir(filepath.Join(file, "sub")); c.Status != Fail {
		t.Errorf("under a file: got %s %q, want fail", c.Status, c.Message)
	}
	if c := checkRoot(0); c.Status != OK {
		t.Errorf("root: got %s, want ok", c.Status)
	}
	if c := checkRoot(1000); c.Status != Warn || !strings.Contains(c.Message, "uid 1000") {
		t.Errorf("uid 1000: got %s %q, want warn naming the uid", c.Status, c.Message)
	}
}
