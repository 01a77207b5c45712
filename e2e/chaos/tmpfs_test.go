//go:build chaos

package chaos

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs of size on a new directory, unmounted when the
// test ends (after the processes started later are stopped). Needs root.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount a %s tmpfs (needs root): %v: %s", size, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a ballast file in dir until its filesystem is full, down to
// the last block, and returns its path.
func fill(t *testing.T, dir string) string {
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
