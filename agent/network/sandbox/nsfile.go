package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// nsfsMagic is the filesystem type of a mounted namespace file.
const nsfsMagic = 0x6e736673

// nsKind is a kind of namespace a pod gets a file of.
type nsKind struct {
	dir  string // folder under the run dir: netns, utsns
	flag int    // unshare flag
	proc string // name under /proc/thread-self/ns
}

var (
	netNS = nsKind{dir: "netns", flag: unix.CLONE_NEWNET, proc: "net"}
	utsNS = nsKind{dir: "utsns", flag: unix.CLONE_NEWUTS, proc: "uts"}
)

// isMounted reports whether path is a live namespace file (false after a
// reboot: the file is there, its mount is not).
func isMounted(path string) bool {
	var st unix.Statfs_t
	return unix.Statfs(path, &st) == nil && st.Type == nsfsMagic
}

// createNS makes a new namespace of kind and pins it by bind-mounting it on
// path, so it outlives every process in it. inside runs in the new
// namespace before it is pinned (the hostname of a UTS namespace). The
// work runs on a thread of its own that is never handed back to Go's
// scheduler: it dies with its goroutine, taking its namespaces along.
func createNS(path string, kind nsKind, inside func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return fmt.Errorf("create %s namespace file: %w", kind.proc, err)
	}
	f.Close()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		errc <- pin(path, kind, inside)
	}()
	if err := <-errc; err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

func pin(path string, kind nsKind, inside func() error) error {
	if err := unix.Unshare(kind.flag); err != nil {
		return fmt.Errorf("unshare %s namespace: %w", kind.proc, err)
	}
	if inside != nil {
		if err := inside(); err != nil {
			return err
		}
	}
	src := fmt.Sprintf("/proc/%d/task/%d/ns/%s", os.Getpid(), unix.Gettid(), kind.proc)
	if err := unix.Mount(src, path, "none", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("pin %s namespace on %s: %w", kind.proc, path, err)
	}
	return nil
}

// removeNS unpins and removes a namespace file; a missing one is fine.
func removeNS(path string) error {
	if err := unix.Unmount(path, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("unpin %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
