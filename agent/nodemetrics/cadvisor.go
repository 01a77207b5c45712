package nodemetrics

import (
	"path/filepath"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bramble-edge/bramble/agent/cgroupstat"
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
	v2 := cgroupstat.V2(k.c.cfg.CgroupRoot)
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
			counter(cpuDesc, s.CPUSeconds)
			counter(periodsDesc, s.Periods)
			counter(thrPerDesc, s.ThrottledPeriods)
			counter(thrSecDesc, s.ThrottledSeconds)
			ch <- prometheus.MustNewConstMetric(wsDesc, prometheus.GaugeValue, s.WorkingSet, labels...)
			ch <- prometheus.MustNewConstMetric(memDesc, prometheus.GaugeValue, s.Usage, labels...)
		}
	}
}

// containerCgroup reads a container's counters from under its pod's
// cgroup (/<namespace>/pod<uid>/<id>, agent/runtime/podcgroup.go) or, for
// a container started without one, from /<namespace>/<id>.
func (k cadvisorCollector) containerCgroup(p *podInfo, id string, v2 bool) (string, cgroupstat.Stats, bool) {
	for _, rel := range []string{
		filepath.Join("/", k.c.cfg.Namespace, "pod"+string(p.uid), id),
		filepath.Join("/", k.c.cfg.Namespace, id),
	} {
		if s, ok := cgroupstat.Read(k.c.cfg.CgroupRoot, rel, v2); ok {
			return rel, s, true
		}
	}
	return "", cgroupstat.Stats{}, false
}
