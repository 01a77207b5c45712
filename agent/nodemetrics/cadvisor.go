package nodemetrics

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// cAdvisor's names and labels, so dashboards made for the kubelet's
// /metrics/cadvisor read these.
var (
	cadvLabels  = []string{"container", "pod", "namespace", "id", "image"}
	cpuDesc     = prometheus.NewDesc("container_cpu_usage_seconds_total", "Cumulative CPU time the container consumed.", cadvLabels, nil)
	wsDesc      = prometheus.NewDesc("container_memory_working_set_bytes", "Memory in use minus inactive file cache (what the OOM killer weighs).", cadvLabels, nil)
	memDesc     = prometheus.NewDesc("container_memory_usage_bytes", "Memory in use, file cache included.", cadvLabels, nil)
	periodsDesc = prometheus.NewDesc("container_cpu_cfs_periods_total", "Enforcement periods of the container's CPU limit.", cadvLabels, nil)
	thrPerDesc  = prometheus.NewDesc("container_cpu_cfs_throttled_periods_total", "Periods in which the container was throttled.", cadvLabels, nil)
	thrSecDesc  = prometheus.NewDesc("container_cpu_cfs_throttled_seconds_total", "Time the container was throttled.", cadvLabels, nil)
)

type cadvisorCollector struct{ c *Collector }

func (k cadvisorCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{cpuDesc, wsDesc, memDesc, periodsDesc, thrPerDesc, thrSecDesc} {
		ch <- d
	}
}

func (k cadvisorCollector) Collect(ch chan<- prometheus.Metric) {
	v2 := fileExists(filepath.Join(k.c.cfg.CgroupRoot, "cgroup.controllers"))
	for _, p := range k.c.snapshot() {
		for _, cs := range p.containers {
			if cs.State.Running == nil || cs.ContainerID == "" {
				continue
			}
			rel, s, ok := k.containerCgroup(p, containerID(cs.ContainerID), v2)
			if !ok {
				continue
			}
			labels := []string{cs.Name, p.name, p.namespace, rel, cs.Image}
			counter := func(d *prometheus.Desc, v float64) {
				ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
			}
			counter(cpuDesc, s.cpuSeconds)
			counter(periodsDesc, s.periods)
			counter(thrPerDesc, s.throttledPeriods)
			counter(thrSecDesc, s.throttledSeconds)
			ch <- prometheus.MustNewConstMetric(wsDesc, prometheus.GaugeValue, s.workingSet, labels...)
			ch <- prometheus.MustNewConstMetric(memDesc, prometheus.GaugeValue, s.usage, labels...)
		}
	}
}

// containerCgroup reads a container's counters from under its pod's
// cgroup (/<namespace>/pod<uid>/<id>, agent/runtime/podcgroup.go) or, for
// a container started without one, from /<namespace>/<id>.
func (k cadvisorCollector) containerCgroup(p *podInfo, id string, v2 bool) (string, cgroupStats, bool) {
	for _, rel := range []string{
		filepath.Join("/", k.c.cfg.Namespace, "pod"+string(p.uid), id),
		filepath.Join("/", k.c.cfg.Namespace, id),
	} {
		if s, ok := readCgroup(k.c.cfg.CgroupRoot, rel, v2); ok {
			return rel, s, true
		}
	}
	return "", cgroupStats{}, false
}

// cgroupStats is one container's counters, in seconds and bytes.
type cgroupStats struct {
	cpuSeconds, periods, throttledPeriods, throttledSeconds float64
	usage, workingSet                                       float64
}

// readCgroup reads the container cgroup rel under root (v2 unified, or
// v1's cpu, cpuacct and memory hierarchies). ok is false when it is gone.
func readCgroup(root, rel string, v2 bool) (cgroupStats, bool) {
	var s cgroupStats
	var inactive float64
	if v2 {
		dir := filepath.Join(root, rel)
		cpu, err := readKeyed(filepath.Join(dir, "cpu.stat"))
		if err != nil {
			return s, false
		}
		s.cpuSeconds, s.periods = cpu["usage_usec"]/1e6, cpu["nr_periods"]
		s.throttledPeriods, s.throttledSeconds = cpu["nr_throttled"], cpu["throttled_usec"]/1e6
		cur, _ := readInt(filepath.Join(dir, "memory.current"))
		mem, _ := readKeyed(filepath.Join(dir, "memory.stat"))
		s.usage, inactive = float64(cur), mem["inactive_file"]
	} else {
		ns, err := readInt(filepath.Join(root, "cpuacct", rel, "cpuacct.usage"))
		if err != nil {
			return s, false
		}
		cpu, _ := readKeyed(filepath.Join(root, "cpu", rel, "cpu.stat"))
		s.cpuSeconds, s.periods = float64(ns)/1e9, cpu["nr_periods"]
		s.throttledPeriods, s.throttledSeconds = cpu["nr_throttled"], cpu["throttled_time"]/1e9
		cur, _ := readInt(filepath.Join(root, "memory", rel, "memory.usage_in_bytes"))
		mem, _ := readKeyed(filepath.Join(root, "memory", rel, "memory.stat"))
		s.usage, inactive = float64(cur), mem["total_inactive_file"]
	}
	s.workingSet = max(s.usage-inactive, 0)
	return s, true
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

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
