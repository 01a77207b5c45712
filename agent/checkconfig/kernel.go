package checkconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func readFile(root, path string) ([]byte, error) {
	return os.ReadFile(filepath.Join(root, path))
}

func exists(root, path string) bool {
	_, err := os.Stat(filepath.Join(root, path))
	return err == nil
}

// kernelVersion parses "6.1.0-rpi7-rpi-v8" into 6 and 1.
func kernelVersion(release string) (major, minor int, err error) {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return 0, 0, fmt.Errorf("kernel release %q: want major.minor", release)
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("kernel release %q: want major.minor", release)
	}
	return major, minor, nil
}

// checkKernel: runc needs 3.10; bramble is not tested below 4.14.
func checkKernel(root string) Check {
	c := Check{Name: "kernel"}
	b, err := readFile(root, "proc/sys/kernel/osrelease")
	if err != nil {
		c.Status, c.Message = Fail, fmt.Sprintf("cannot read the kernel release: %v", err)
		return c
	}
	release := strings.TrimSpace(string(b))
	major, minor, err := kernelVersion(release)
	switch {
	case err != nil:
		c.Status, c.Message = Warn, err.Error()
	case major < 3 || major == 3 && minor < 10:
		c.Status, c.Message = Fail, release+": runc needs Linux 3.10 or later; upgrade the kernel"
	case major < 4 || major == 4 && minor < 14:
		c.Status, c.Message = Warn, release+": kernels older than 4.14 are not tested; upgrade if containers misbehave"
	default:
		c.Status, c.Message = OK, release
	}
	return c
}

// checkOverlay: containerd's default snapshotter needs overlayfs.
func checkOverlay(root string) Check {
	c := Check{Name: "overlayfs"}
	b, _ := readFile(root, "proc/filesystems")
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && f[len(f)-1] == "overlay" {
			c.Status, c.Message = OK, "overlay is supported"
			return c
		}
	}
	rel, _ := readFile(root, "proc/sys/kernel/osrelease")
	mods, _ := filepath.Glob(filepath.Join(root, "lib/modules", strings.TrimSpace(string(rel)), "kernel/fs/overlayfs/overlay.ko*"))
	if len(mods) > 0 {
		c.Status = Warn
		c.Message = "the overlay module is not loaded; containerd loads it when it starts, or run:\n" +
			"modprobe overlay && echo overlay > /etc/modules-load.d/bramble.conf"
		return c
	}
	c.Status = Fail
	c.Message = "overlay is not in /proc/filesystems and no overlay module was found: " +
		"use a kernel with CONFIG_OVERLAY_FS, or configure containerd with the native snapshotter"
	return c
}
