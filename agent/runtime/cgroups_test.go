package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cgroupFile reads a control file of a container's cgroup: v1File under
// the controller's hierarchy on cgroup v1, v2File on the unified hierarchy.
func cgroupFile(t testing.TB, rt *Containerd, id, controller, v1File, v2File string) string {
	t.Helper()
	path := ociSpec(t, rt, id).Linux.CgroupsPath
	file := filepath.Join("/sys/fs/cgroup", controller, path, v1File)
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		file = filepath.Join("/sys/fs/cgroup", path, v2File)
	}
	return strings.TrimSpace(readFile(t, file))
}

func TestMemoryLimitInCgroupAndOOMKilled(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	trigger := t.TempDir()
	// Waits for the test to look at its cgroup, then doubles a string
	// until the 24 MiB limit stops it.
	script := `while [ ! -e /trigger/go ]; do sleep 0.05; done; x=0123456789; while true; do x=$x$x; done`
	err := rt.RunContainer(context.Background(), ContainerSpec{
		ID: "hog", Image: busybox, MemoryLimit: 24 << 20, Command: []string{"sh", "-c", script},
		Mounts: []Mount{{HostPath: trigger, ContainerPath: "/trigger"}},
	})
	if err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	waitState(t, rt, "hog", StateRunning, 10*time.Second)
	if got := cgroupFile(t, rt, "hog", "memory", "memory.limit_in_bytes", "memory.max"); got != "25165824" {
		t.Errorf("memory limit in cgroup: got %s, want 25165824", got)
	}
	if err := os.WriteFile(filepath.Join(trigger, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, rt, "hog", StateExited, 30*time.Second)
	if !st.OOMKilled || st.ExitCode != 137 {
		t.Errorf("over the limit: got oomKilled %v exit %d, want true 137", st.OOMKilled, st.ExitCode)
	}
}

func TestCPUQuotaInCgroup(t *testing.T) {
	rt := newRuntime(t, "")
	importBusybox(t, rt, busybox, nil)
	err := rt.RunContainer(context.Background(), ContainerSpec{
		ID: "cpu", Image: busybox, CPUQuota: 50000, CPUShares: 512, Command: []string{"sleep", "30"},
	})
	if err != nil {
		t.Fatalf("RunContainer: %v", err)
	}
	waitState(t, rt, "cpu", StateRunning, 10*time.Second)
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		if got := cgroupFile(t, rt, "cpu", "", "", "cpu.max"); got != "50000 100000" {
			t.Errorf("cpu.max: got %q, want %q", got, "50000 100000")
		}
		return
	}
	if got := cgroupFile(t, rt, "cpu", "cpu", "cpu.cfs_quota_us", ""); got != "50000" {
		t.Errorf("cpu.cfs_quota_us: got %s, want 50000", got)
	}
	if got := cgroupFile(t, rt, "cpu", "cpu", "cpu.cfs_period_us", ""); got != "100000" {
		t.Errorf("cpu.cfs_period_us: got %s, want 100000", got)
	}
	if got := cgroupFile(t, rt, "cpu", "cpu", "cpu.shares", ""); got != "512" {
		t.Errorf("cpu.shares: got %s, want 512", got)
	}
}
