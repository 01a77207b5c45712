package nodeinfo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"strings"

	"github.com/shirou/gopsutil/v3/cpu"
	"github.com/shirou/gopsutil/v3/disk"
	"github.com/shirou/gopsutil/v3/mem"
	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/version"
)

// resources are the figures read through gopsutil.
type resources struct {
	cpus                    int
	memTotal, memAvailable  uint64
	diskTotal, diskFree     uint64
	inodesTotal, inodesFree uint64
}

// readResources counts logical CPUs (never MHz: it reads 0 on many ARM
// boards), reads memory, and measures the filesystem holding dataDir.
func readResources(ctx context.Context, dataDir string) (resources, error) {
	var r resources
	n, err := cpu.CountsWithContext(ctx, true)
	if err != nil || n < 1 {
		n = goruntime.NumCPU()
	}
	r.cpus = n
	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return r, fmt.Errorf("read memory: %w", err)
	}
	r.memTotal, r.memAvailable = vm.Total, vm.Available
	dir, err := existingParent(dataDir)
	if err != nil {
		return r, err
	}
	du, err := disk.UsageWithContext(ctx, dir)
	if err != nil {
		return r, fmt.Errorf("measure the filesystem of %s: %w", dir, err)
	}
	r.diskTotal, r.diskFree = du.Total, du.Free
	r.inodesTotal, r.inodesFree = du.InodesTotal, du.InodesFree
	return r, nil
}

// existingParent returns dir, or its nearest ancestor that exists.
func existingParent(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--data-dir %q: %w", dir, err)
	}
	for {
		if _, err := os.Stat(abs); err == nil || !errors.Is(err, os.ErrNotExist) {
			return abs, err
		}
		abs = filepath.Dir(abs)
	}
}

// systemInfo fills nodeInfo from files under root and uname, and returns
// the board model.
func systemInfo(root string) (corev1.NodeSystemInfo, string) {
	read := func(p string) []byte { b, _ := os.ReadFile(filepath.Join(root, p)); return b }
	trim := func(p string) string { return strings.TrimSpace(string(read(p))) }
	info := corev1.NodeSystemInfo{
		MachineID:       trim("etc/machine-id"),
		SystemUUID:      strings.ToLower(trim("sys/class/dmi/id/product_uuid")),
		BootID:          trim("proc/sys/kernel/random/boot_id"),
		KernelVersion:   kernelRelease(),
		OSImage:         osPrettyName(read("etc/os-release")),
		OperatingSystem: goruntime.GOOS,
		Architecture:    Architecture(goruntime.GOARCH, buildSetting("GOARM"), read("proc/cpuinfo")),
		KubeletVersion:  version.KubeletVersion(), // kubeProxyVersion stays empty, as upstream now leaves it
	}
	if info.OSImage == "Linux" {
		info.OSImage = osPrettyName(read("usr/lib/os-release"))
	}
	return info, boardModel(read("proc/device-tree/model"))
}

func kernelRelease() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

// buildSetting returns a setting the binary was built with, e.g. GOARM.
func buildSetting(key string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

// askRuntime fills the runtime version and returns the Ready condition and
// the images present. Ready is True when the runtime answers both.
func askRuntime(ctx context.Context, rt RuntimeInfo, info *corev1.NodeSystemInfo) (corev1.NodeCondition, []runtime.Image) {
	notReady := func(msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "RuntimeNotReady", Message: msg}
	}
	if rt == nil {
		return notReady("no container runtime configured"), nil
	}
	v, err := rt.Version(ctx)
	if err != nil {
		return notReady(err.Error()), nil
	}
	info.ContainerRuntimeVersion = "containerd://" + v
	list, err := rt.ListImages(ctx)
	if err != nil {
		return notReady(err.Error()), nil
	}
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "AgentReady",
		Message: "containerd " + v + " answers"}
	return ready, list
}
