package runtimetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PowerCut does to the daemon what a power cut does to a host: containerd,
// its shims and everything they started (containers, log drivers) die at
// once with SIGKILL, and what lives on tmpfs on a real host is gone: the
// daemon's state directory (/run/containerd there), runc's state of the
// namespaces nss (/run/containerd/runc/<ns>) and their cgroups. The root
// (images, container records, snapshots) stays, as on disk. Restart
// brings the daemon up again on it.
func (d *Daemon) PowerCut(nss ...string) error {
	victims := d.shimTrees()
	_ = d.cmd.Process.Kill()
	for _, pid := range victims {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	<-d.exited
	waitGone(victims, 10*time.Second)
	state := filepath.Join(d.Dir, "state")
	errs := []error{unmountUnder(state), os.RemoveAll(state)}
	for _, ns := range nss {
		errs = append(errs, os.RemoveAll(filepath.Join("/run/containerd/runc", ns)), removeCgroups(ns))
	}
	return errors.Join(errs...)
}

// Restart starts the daemon again on its directory and waits until it
// serves (after PowerCut).
func (d *Daemon) Restart(ctx context.Context) error {
	d.exited = make(chan error, 1)
	if err := d.start(); err != nil {
		return err
	}
	return d.waitServing(ctx)
}

// shimTrees returns the PIDs of this daemon's shims and all their
// descendants.
func (d *Daemon) shimTrees() []int {
	children := map[int][]int{}
	var shims []int
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range procs {
		pid, _ := strconv.Atoi(filepath.Base(dir))
		if ppid, ok := parentPID(dir); ok {
			children[ppid] = append(children[ppid], pid)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		args := strings.Split(string(raw), "\x00")
		if err == nil && strings.HasPrefix(filepath.Base(args[0]), "containerd-shim") && hasArg(args, "-address", d.Address) {
			shims = append(shims, pid)
		}
	}
	var out []int
	for len(shims) > 0 {
		pid := shims[0]
		shims = append(shims[1:], children[pid]...)
		out = append(out, pid)
	}
	return out
}

func hasArg(args []string, flag, value string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag && args[i+1] == value {
			return true
		}
	}
	return false
}

// parentPID reads the parent's PID from /proc/PID/stat (the field after
// the state, which follows the parenthesised command name).
func parentPID(dir string) (int, bool) {
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}

// waitGone waits until each of pids is gone or a zombie, or the timeout
// passes.
func waitGone(pids []int, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for _, pid := range pids {
		for time.Now().Before(deadline) {
			stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			if err != nil || zombie(stat) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func zombie(stat []byte) bool {
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

// removeCgroups removes the namespace's (empty) cgroups of every
// controller: runc puts a container in /<namespace>/<id> by default.
func removeCgroups(ns string) error {
	tops, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", ns))
	var dirs []string
	for _, top := range tops {
		_ = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
	}
	// Deepest first: a pod's cgroup holds its containers' (agent/runtime
	// podcgroup.go), and a cgroup with children cannot be removed.
	sort.Slice(dirs, func(i, j int) bool {
		return strings.Count(dirs[i], "/") > strings.Count(dirs[j], "/")
	})
	var errs []error
	for _, dir := range dirs {
		if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove cgroup %s: %w", dir, err))
		}
	}
	return errors.Join(errs...)
}
