// Package cgroupstat reads a cgroup's CPU and memory counters from the
// cgroup filesystem, on cgroup v2 (the unified hierarchy) and v1 (the cpu,
// cpuacct and memory hierarchies), counted as the kubelet counts them: the
// memory working set is usage less the inactive file cache. The cAdvisor
// metrics (agent/nodemetrics) and memory eviction's pod working set
// (agent/runtime) read through it.
package cgroupstat

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Stats are one cgroup's counters, in seconds and bytes.
type Stats struct {
	CPUSeconds, Periods, ThrottledPeriods, ThrottledSeconds float64
	Usage, WorkingSet                                       float64
}

// V2 reports whether root (usually /sys/fs/cgroup) holds the unified
// hierarchy.
func V2(root string) bool {
	_, err := os.Stat(filepath.Join(root, "cgroup.controllers"))
	return err == nil
}

// Read reads the CPU and memory counters of cgroup rel (a path such as
// /k8s.io/pod<uid>/<id>) under root; v2 says which layout (V2). ok is
// false when the cgroup is gone; memory it cannot read counts as zero.
func Read(root, rel string, v2 bool) (s Stats, ok bool) {
	if v2 {
		cpu, err := readKeyed(filepath.Join(root, rel, "cpu.stat"))
		if err != nil {
			return s, false
		}
		s.CPUSeconds, s.Periods = cpu["usage_usec"]/1e6, cpu["nr_periods"]
		s.ThrottledPeriods, s.ThrottledSeconds = cpu["nr_throttled"], cpu["throttled_usec"]/1e6
	} else {
		ns, err := readNumber(filepath.Join(root, "cpuacct", rel, "cpuacct.usage"))
		if err != nil {
			return s, false
		}
		cpu, _ := readKeyed(filepath.Join(root, "cpu", rel, "cpu.stat"))
		s.CPUSeconds, s.Periods = ns/1e9, cpu["nr_periods"]
		s.ThrottledPeriods, s.ThrottledSeconds = cpu["nr_throttled"], cpu["throttled_time"]/1e9
	}
	if usage, ws, err := Memory(root, rel, v2); err == nil {
		s.Usage, s.WorkingSet = float64(usage), float64(ws)
	}
	return s, true
}

// Memory reads the memory usage of cgroup rel under root and its working
// set (usage less inactive file cache, never below zero).
func Memory(root, rel string, v2 bool) (usage, workingSet int64, err error) {
	dir, usageFile, inactiveKey := filepath.Join(root, "memory", rel), "memory.usage_in_bytes", "total_inactive_file"
	if v2 {
		dir, usageFile, inactiveKey = filepath.Join(root, rel), "memory.current", "inactive_file"
	}
	n, err := readNumber(filepath.Join(dir, usageFile))
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", usageFile, err)
	}
	stat, err := readKeyed(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return 0, 0, err
	}
	usage = int64(n)
	return usage, max(usage-int64(stat[inactiveKey]), 0), nil
}

// readNumber reads a cgroup file holding one number.
func readNumber(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
}

// readKeyed reads a cgroup file of "key value" lines.
func readKeyed(path string) (map[string]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if n, err := strconv.ParseFloat(strings.TrimSpace(v), 64); ok && err == nil {
			out[k] = n
		}
	}
	return out, sc.Err()
}
