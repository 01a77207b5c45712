package nodemetrics

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"golang.org/x/sys/unix"

	"github.com/bramble-edge/bramble/metrics"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runningPod(id string, restarts int32) (*corev1.Pod, corev1.PodStatus) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "u1"}}
	return pod, corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
		Name: "main", Image: "busybox", ContainerID: "containerd://" + id, RestartCount: restarts,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
	}}}
}

// TestCadvisorV1AndV2 reads a container's CPU and memory from cgroup v1
// and v2 layouts under cAdvisor's names and labels.
func TestCadvisorV1AndV2(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		files    map[string]string
	}{
		{"v2", "/ns/abc", map[string]string{
			"cgroup.controllers":    "cpu memory",
			"ns/abc/cpu.stat":       "usage_usec 2500000\nnr_periods 10\nnr_throttled 4\nthrottled_usec 500000\n",
			"ns/abc/memory.current": "1048576\n",
			"ns/abc/memory.stat":    "anon 100\ninactive_file 48576\n",
		}},
		{"v1", "/ns/abc", map[string]string{
			"cpuacct/ns/abc/cpuacct.usage":        "2500000000\n",
			"cpu/ns/abc/cpu.stat":                 "nr_periods 10\nnr_throttled 4\nthrottled_time 500000000\n",
			"memory/ns/abc/memory.usage_in_bytes": "1048576\n",
			"memory/ns/abc/memory.stat":           "cache 5\ntotal_inactive_file 48576\n",
		}},
		// Under the pod's cgroup (agent/runtime/podcgroup.go), as the agent
		// starts containers of pods with a pod cgroup.
		{"v1 pod cgroup", "/ns/podu1/abc", map[string]string{
			"cpuacct/ns/podu1/abc/cpuacct.usage":        "2500000000\n",
			"cpu/ns/podu1/abc/cpu.stat":                 "nr_periods 10\nnr_throttled 4\nthrottled_time 500000000\n",
			"memory/ns/podu1/abc/memory.usage_in_bytes": "1048576\n",
			"memory/ns/podu1/abc/memory.stat":           "cache 5\ntotal_inactive_file 48576\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, c := range tc.files {
				write(t, filepath.Join(root, p), c)
			}
			c := New(Config{Namespace: "ns", CgroupRoot: root, SysRoot: t.TempDir(), ProcRoot: t.TempDir()})
			c.OnStatus(runningPod("abc", 0))
			out, err := c.Gather("/metrics/cadvisor")
			if err != nil {
				t.Fatal(err)
			}
			labels := `{container="main",id="` + tc.id + `",image="busybox",namespace="default",pod="web"}`
			for _, want := range []string{
				"container_cpu_usage_seconds_total" + labels + " 2.5",
				"container_memory_working_set_bytes" + labels + " 1e+06",
				"container_memory_usage_bytes" + labels + " 1.048576e+06",
				"container_cpu_cfs_throttled_periods_total" + labels + " 4",
				"container_cpu_cfs_throttled_seconds_total" + labels + " 0.5",
			} {
				if !strings.Contains(string(out), want+"\n") {
					t.Errorf("missing %s in:\n%s", want, out)
				}
			}
		})
	}
}

// TestNodeMetrics: pods by phase, restarts, starts counted once per new
// container id, thermal zones, Pi throttling flags and the data disk's
// writes; a pod no longer alive is forgotten.
func TestNodeMetrics(t *testing.T) {
	sys, proc, data := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(sys, "class/thermal/thermal_zone0/temp"), "48312\n")
	write(t, filepath.Join(sys, "class/thermal/thermal_zone0/type"), "cpu-thermal\n")
	write(t, filepath.Join(sys, "devices/platform/soc/soc:firmware/get_throttled"), "0x80001\n")
	dev := devOf(t, data)
	write(t, filepath.Join(proc, "diskstats"), "   1 0 ram0 0 0 0 0 0 0 0 0 0 0 0\n "+dev+" mmcblk0p2 100 0 800 50 42 3 336 90 0 120 140\n")
	alive := true
	c := New(Config{DataDir: data, SysRoot: sys, ProcRoot: proc, CgroupRoot: t.TempDir(),
		Alive: func(types.UID) bool { return alive }})
	before := testutil.ToFloat64(metrics.AgentContainerStarts)
	c.OnStatus(runningPod("abc", 0))
	c.OnStatus(runningPod("abc", 0)) // the same container again: no start
	c.OnStatus(runningPod("def", 1)) // restarted: a new id
	if got := testutil.ToFloat64(metrics.AgentContainerStarts) - before; got != 2 {
		t.Errorf("container starts: got %v, want 2", got)
	}
	out := gather(t, c)
	for _, want := range []string{
		`bramble_agent_pods{phase="Running"} 1`,
		`bramble_agent_container_restarts_total{container="main",namespace="default",pod="web"} 1`,
		`bramble_node_temperature_celsius{type="cpu-thermal",zone="thermal_zone0"} 48.312`,
		`bramble_node_throttled{flag="under_voltage",since="now"} 1`,
		`bramble_node_throttled{flag="throttled",since="now"} 0`,
		`bramble_node_throttled{flag="under_voltage",since="boot"} 0`,
		`bramble_node_throttled{flag="soft_temperature_limit",since="boot"} 1`,
		`bramble_node_disk_writes_completed_total{device="mmcblk0p2"} 42`,
		`bramble_node_disk_written_bytes_total{device="mmcblk0p2"} 172032`,
		"bramble_agent_mqtt_connects_total", "process_resident_memory_bytes",
	} {
		if !strings.Contains(out, want+"\n") && !strings.Contains(out, want+" ") {
			t.Errorf("missing %s in:\n%s", want, out)
		}
	}
	alive = false
	if out := gather(t, c); strings.Contains(out, "bramble_agent_pods{") {
		t.Errorf("a pod no longer running is still reported:\n%s", out)
	}
	if _, err := c.Gather("/stats/summary"); err == nil {
		t.Error("Gather of an unknown path: want an error")
	}
}

func gather(t *testing.T, c *Collector) string {
	t.Helper()
	out, err := c.Gather("/metrics")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// devOf is "major minor" of the device holding dir.
func devOf(t *testing.T, dir string) string {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d %d", unix.Major(st.Dev), unix.Minor(st.Dev))
}
