// Package nodemetrics is the agent's side of the node proxy's /metrics and
// /metrics/cadvisor: the pods the agent runs (from the statuses it
// reports), the board's temperature and throttling, the data disk's
// writes, and each container's CPU and memory from its cgroup. The server
// asks for them over the agent's MQTT connection (agent/logs answers).
package nodemetrics

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/metrics"
)

// Config says where the agent's parts are; empty fields take the host's.
type Config struct {
	// DataDir is the agent's data directory: its device's writes are
	// reported (the SD card on a Pi).
	DataDir string
	// Namespace is the agent's containerd namespace; container cgroups
	// are /<namespace>/pod<uid>/<id> under the pod's cgroup, or
	// /<namespace>/<id> (runtime's default, containers without one).
	Namespace string
	// Alive reports whether a pod still runs here; statuses of other pods
	// are forgotten when gathering. Nil keeps every pod seen.
	Alive func(types.UID) bool
	// Roots of /sys/fs/cgroup, /sys and /proc (tests point them at
	// fixtures).
	CgroupRoot, SysRoot, ProcRoot string
}

// Collector holds what the agent last reported of its pods and answers
// Gather. OnStatus may be called from any goroutine.
type Collector struct {
	cfg  Config
	node *prometheus.Registry // the node collector, gathered with metrics.Agent
	cadv *prometheus.Registry

	mu   sync.Mutex
	pods map[types.UID]*podInfo
}

type podInfo struct {
	uid             types.UID
	namespace, name string
	phase           corev1.PodPhase
	containers      []corev1.ContainerStatus
}

// New returns a Collector for cfg.
func New(cfg Config) *Collector {
	if cfg.CgroupRoot == "" {
		cfg.CgroupRoot = "/sys/fs/cgroup"
	}
	if cfg.SysRoot == "" {
		cfg.SysRoot = "/sys"
	}
	if cfg.ProcRoot == "" {
		cfg.ProcRoot = "/proc"
	}
	c := &Collector{cfg: cfg, node: prometheus.NewRegistry(), cadv: prometheus.NewRegistry(), pods: map[types.UID]*podInfo{}}
	c.node.MustRegister(nodeCollector{c})
	c.cadv.MustRegister(cadvisorCollector{c})
	return c
}

// OnStatus records a pod's status as the agent reports it, counting the
// containers that started since the last one.
func (c *Collector) OnStatus(pod *corev1.Pod, st corev1.PodStatus) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.pods[pod.UID]
	for _, cs := range st.ContainerStatuses {
		if cs.State.Running != nil && cs.ContainerID != "" && !runningBefore(old, cs.ContainerID) {
			metrics.AgentContainerStarts.Inc()
		}
	}
	c.pods[pod.UID] = &podInfo{uid: pod.UID, namespace: pod.Namespace, name: pod.Name, phase: st.Phase,
		containers: append([]corev1.ContainerStatus(nil), st.ContainerStatuses...)}
}

func runningBefore(p *podInfo, id string) bool {
	if p == nil {
		return false
	}
	for _, cs := range p.containers {
		if cs.ContainerID == id && cs.State.Running != nil {
			return true
		}
	}
	return false
}

// snapshot returns the pods still alive.
func (c *Collector) snapshot() []*podInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*podInfo, 0, len(c.pods))
	for uid, p := range c.pods {
		if c.cfg.Alive != nil && !c.cfg.Alive(uid) {
			delete(c.pods, uid)
			continue
		}
		out = append(out, p)
	}
	return out
}

// Gather renders path ("/metrics" or "/metrics/cadvisor") in Prometheus's
// text format.
func (c *Collector) Gather(path string) ([]byte, error) {
	var g prometheus.Gatherer
	switch path {
	case "/metrics":
		g = prometheus.Gatherers{metrics.Agent, c.node}
	case "/metrics/cadvisor":
		g = c.cadv
	default:
		return nil, fmt.Errorf("no metrics at %q", path)
	}
	mfs, err := g.Gather()
	if err != nil && len(mfs) == 0 {
		return nil, err
	}
	var buf bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// containerID strips the runtime prefix of a status's containerID.
func containerID(s string) string {
	_, id, ok := strings.Cut(s, "://")
	if !ok {
		return s
	}
	return id
}
