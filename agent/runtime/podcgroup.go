package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/oci"

	"github.com/bramble-edge/bramble/agent/cgroupstat"
)

// cgroupRoot is where the cgroup hierarchies are mounted (a variable for
// tests of the path logic only).
var cgroupRoot = "/sys/fs/cgroup"

// PodResources are a pod-level cgroup's limits, as the kubelet computes
// them (pod overhead included); zero fields set no limit.
type PodResources struct {
	MemoryLimit int64
	CPUQuota    int64 // per CPUPeriod
	CPUPeriod   uint64
	CPUShares   uint64
}

// PodCgroup is the pod-level cgroup of a pod: <namespace>/pod<uid>, the
// parent of its containers' cgroups when ContainerSpec.PodCgroup is set.
func (c *Containerd) PodCgroup(podUID string) string {
	return filepath.Join("/", c.cfg.Namespace, "pod"+podUID)
}

// EnsurePodCgroup creates the pod's cgroup and writes its limits, on
// cgroup v1 (memory and cpu hierarchies) and v2 (the unified one, with
// the controllers enabled in the namespace's cgroup).
func (c *Containerd) EnsurePodCgroup(_ context.Context, podUID string, r PodResources) error {
	if !validID(podUID) {
		return fmt.Errorf("pod cgroup: pod uid %q: want letters, digits, '_', '.', '-'", podUID)
	}
	if err := c.ensurePodCgroup(c.PodCgroup(podUID), r); err != nil {
		return fmt.Errorf("pod cgroup %s: %w", c.PodCgroup(podUID), err)
	}
	return nil
}

func (c *Containerd) ensurePodCgroup(path string, r PodResources) error {
	period := r.CPUPeriod
	if period == 0 {
		period = defaultCPUPeriod
	}
	if cgroupV2() {
		ns := filepath.Join(cgroupRoot, filepath.Dir(path))
		if err := os.MkdirAll(filepath.Join(cgroupRoot, path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(ns, "cgroup.subtree_control"), []byte("+cpu +memory +pids"), 0o644); err != nil {
			return fmt.Errorf("enable controllers: %w", err)
		}
		return writeLimits(filepath.Join(cgroupRoot, path), v2Limits(r, period))
	}
	for ctrl, files := range v1Limits(r, period) {
		dir := filepath.Join(cgroupRoot, ctrl, path)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := writeLimits(dir, files); err != nil {
			return err
		}
	}
	return nil
}

// limit is one control file and its value, written in order.
type limit struct{ file, value string }

func v2Limits(r PodResources, period uint64) []limit {
	out := []limit{{"memory.max", "max"}, {"cpu.max", "max " + strconv.FormatUint(period, 10)}}
	if r.MemoryLimit > 0 {
		out[0].value = strconv.FormatInt(r.MemoryLimit, 10)
	}
	if r.CPUQuota > 0 {
		out[1].value = strconv.FormatInt(r.CPUQuota, 10) + " " + strconv.FormatUint(period, 10)
	}
	if r.CPUShares > 0 { // runc's conversion of shares to a weight
		w := 1 + ((r.CPUShares-2)*9999)/262142
		out = append(out, limit{"cpu.weight", strconv.FormatUint(w, 10)})
	}
	return out
}

func v1Limits(r PodResources, period uint64) map[string][]limit {
	mem := []limit{{"memory.limit_in_bytes", "-1"}}
	if r.MemoryLimit > 0 {
		mem[0].value = strconv.FormatInt(r.MemoryLimit, 10)
		if _, err := os.Stat(memswPath); err == nil {
			mem = append(mem, limit{"memory.memsw.limit_in_bytes", mem[0].value})
		}
	}
	cpu := []limit{{"cpu.cfs_period_us", strconv.FormatUint(period, 10)}, {"cpu.cfs_quota_us", "-1"}}
	if r.CPUQuota > 0 {
		cpu[1].value = strconv.FormatInt(r.CPUQuota, 10)
	}
	if r.CPUShares > 0 {
		cpu = append(cpu, limit{"cpu.shares", strconv.FormatUint(r.CPUShares, 10)})
	}
	return map[string][]limit{"memory": mem, "cpu": cpu}
}

func writeLimits(dir string, ls []limit) error {
	for _, l := range ls {
		if err := os.WriteFile(filepath.Join(dir, l.file), []byte(l.value), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", l.file, err)
		}
	}
	return nil
}

// RemovePodCgroup removes the pod's cgroup (in every v1 hierarchy runc
// created it in) once its containers are gone; a missing one is fine.
func (c *Containerd) RemovePodCgroup(_ context.Context, podUID string) error {
	if !validID(podUID) {
		return fmt.Errorf("pod cgroup: pod uid %q: want letters, digits, '_', '.', '-'", podUID)
	}
	path := c.PodCgroup(podUID)
	dirs := []string{filepath.Join(cgroupRoot, path)}
	if !cgroupV2() {
		dirs, _ = filepath.Glob(filepath.Join(cgroupRoot, "*", path))
	}
	var errs []error
	for _, d := range dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func cgroupV2() bool { return cgroupstat.V2(cgroupRoot) }

// withPodCgroup puts the container's cgroup under its pod's.
func (c *Containerd) withPodCgroup(s ContainerSpec) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, spec *oci.Spec) error {
		if spec.Linux != nil {
			spec.Linux.CgroupsPath = filepath.Join(c.PodCgroup(s.PodUID), s.ID)
		}
		return nil
	}
}

// PodMemoryWorkingSet is the memory the pod's cgroup uses less its
// inactive file cache: the kubelet's working set, which its memory
// eviction ranks pods by.
func (c *Containerd) PodMemoryWorkingSet(_ context.Context, podUID string) (int64, error) {
	_, ws, err := cgroupstat.Memory(cgroupRoot, c.PodCgroup(podUID), cgroupV2())
	if err != nil {
		return 0, fmt.Errorf("pod memory usage: %w", err)
	}
	return ws, nil
}
