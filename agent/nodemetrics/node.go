package nodemetrics

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"
)

var (
	podsDesc     = prometheus.NewDesc("bramble_agent_pods", "Pods on this node by phase.", []string{"phase"}, nil)
	restartsDesc = prometheus.NewDesc("bramble_agent_container_restarts_total", "Restarts of each container, as its status counts them.",
		[]string{"namespace", "pod", "container"}, nil)
	tempDesc = prometheus.NewDesc("bramble_node_temperature_celsius", "Temperature of each thermal zone (the CPU's on a Pi).",
		[]string{"zone", "type"}, nil)
	throttledDesc = prometheus.NewDesc("bramble_node_throttled", "Raspberry Pi firmware throttling flags (get_throttled): 1 when set now (since=\"now\") or since boot (since=\"boot\").",
		[]string{"flag", "since"}, nil)
	diskWritesDesc = prometheus.NewDesc("bramble_node_disk_writes_completed_total", "Writes completed on the data directory's block device (/proc/diskstats).",
		[]string{"device"}, nil)
	diskBytesDesc = prometheus.NewDesc("bramble_node_disk_written_bytes_total", "Bytes written to the data directory's block device (/proc/diskstats sectors x 512).",
		[]string{"device"}, nil)
)

type nodeCollector struct{ c *Collector }

func (n nodeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{podsDesc, restartsDesc, tempDesc, throttledDesc, diskWritesDesc, diskBytesDesc} {
		ch <- d
	}
}

func (n nodeCollector) Collect(ch chan<- prometheus.Metric) {
	phases := map[string]int{}
	for _, p := range n.c.snapshot() {
		phases[string(p.phase)]++
		for _, cs := range p.containers {
			ch <- prometheus.MustNewConstMetric(restartsDesc, prometheus.CounterValue, float64(cs.RestartCount), p.namespace, p.name, cs.Name)
		}
	}
	for phase, count := range phases {
		ch <- prometheus.MustNewConstMetric(podsDesc, prometheus.GaugeValue, float64(count), phase)
	}
	n.temperatures(ch)
	n.throttled(ch)
	n.disk(ch)
}

// temperatures reads every thermal zone (millidegrees Celsius).
func (n nodeCollector) temperatures(ch chan<- prometheus.Metric) {
	zones, _ := filepath.Glob(filepath.Join(n.c.cfg.SysRoot, "class/thermal/thermal_zone*"))
	for _, z := range zones {
		milli, err := readInt(filepath.Join(z, "temp"))
		if err != nil {
			continue
		}
		typ, _ := os.ReadFile(filepath.Join(z, "type"))
		ch <- prometheus.MustNewConstMetric(tempDesc, prometheus.GaugeValue, float64(milli)/1000,
			filepath.Base(z), strings.TrimSpace(string(typ)))
	}
}

// throttleFlags are get_throttled's bits: the low ones now, +16 since boot.
var throttleFlags = []struct {
	bit  uint
	name string
}{{0, "under_voltage"}, {1, "arm_frequency_capped"}, {2, "throttled"}, {3, "soft_temperature_limit"}}

// throttled reads the Pi firmware's flags, where the board has them.
func (n nodeCollector) throttled(ch chan<- prometheus.Metric) {
	b, err := os.ReadFile(filepath.Join(n.c.cfg.SysRoot, "devices/platform/soc/soc:firmware/get_throttled"))
	if err != nil {
		return
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(string(b)), "0x"), 16, 32)
	if err != nil {
		return
	}
	for _, f := range throttleFlags {
		ch <- prometheus.MustNewConstMetric(throttledDesc, prometheus.GaugeValue, float64(v>>f.bit&1), f.name, "now")
		ch <- prometheus.MustNewConstMetric(throttledDesc, prometheus.GaugeValue, float64(v>>(f.bit+16)&1), f.name, "boot")
	}
}

// disk reports the writes of the block device holding the data directory.
func (n nodeCollector) disk(ch chan<- prometheus.Metric) {
	if n.c.cfg.DataDir == "" {
		return
	}
	var st unix.Stat_t
	if err := unix.Stat(n.c.cfg.DataDir, &st); err != nil {
		return
	}
	name, writes, sectors, ok := diskWrites(filepath.Join(n.c.cfg.ProcRoot, "diskstats"), unix.Major(st.Dev), unix.Minor(st.Dev))
	if !ok {
		return
	}
	ch <- prometheus.MustNewConstMetric(diskWritesDesc, prometheus.CounterValue, float64(writes), name)
	ch <- prometheus.MustNewConstMetric(diskBytesDesc, prometheus.CounterValue, float64(sectors*512), name)
}

// diskWrites finds major:minor in a /proc/diskstats file: its name, writes
// completed (field 8) and sectors written (field 10).
func diskWrites(path string, major, minor uint32) (string, uint64, uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, 0, false
	}
	defer f.Close()
	want := strconv.FormatUint(uint64(major), 10) + " " + strconv.FormatUint(uint64(minor), 10)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 10 || fs[0]+" "+fs[1] != want {
			continue
		}
		writes, err1 := strconv.ParseUint(fs[7], 10, 64)
		sectors, err2 := strconv.ParseUint(fs[9], 10, 64)
		return fs[2], writes, sectors, err1 == nil && err2 == nil
	}
	return "", 0, 0, false
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
