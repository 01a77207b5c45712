// Package tmpfstest gives tests a real small filesystem they can fill: a
// tmpfs of a chosen size, unmounted when the test ends. The disk-full tests
// of the datastore, the server, the agent and the chaos suite share it.
package tmpfstest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size (mount's syntax, e.g. "4m") on a new
// directory and returns it; it is unmounted at cleanup. It needs root and
// fails the test loudly without it: these tests are about a real full
// filesystem. Call it before starting what uses the directory, so that its
// cleanup (registered first) runs after that part's.
func Mount(t testing.TB, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount a %s tmpfs (needs root): %v: %s", size, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes a ballast file in dir until its filesystem is full, down to
// the last byte, and returns the file's path (remove it to free the space).
func Fill(t testing.TB, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ballast")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{1 << 20, 4 << 10, 1} {
		chunk := bytes.Repeat([]byte{1}, size)
		for err == nil {
			_, err = f.Write(chunk)
		}
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("fill %s: got %v, want ENOSPC", dir, err)
		}
		err = nil
	}
	return path
}
