package agent

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/internal/meminfo"
	"github.com/bramble-edge/bramble/mqtt"
)

// usageSampler turns cumulative counters into the rates a heartbeat
// carries (mqtt.Usage): the node's CPU from /proc/stat, its memory working
// set from /proc/meminfo, each container's from its cgroup through
// containerd. A rate needs two samples, so the first heartbeat after a
// start, and a container's first heartbeat, carry none. It runs on the
// heartbeat goroutine only.
type usageSampler struct {
	root      string // where /proc is read from
	counters  func(context.Context) ([]runtime.ContainerUsage, error)
	podName   func(types.UID) (namespace, name string, ok bool)
	logger    *slog.Logger
	now       func() time.Time
	prevNode  nodeCPU
	prevCtrs  map[string]runtime.ContainerUsage
	userHertz uint64
}

// nodeCPU is the node's busy CPU time at one moment.
type nodeCPU struct {
	busyNanos uint64
	at        time.Time
}

// usage returns the heartbeat's usage source.
func (a *agent) usage() func(context.Context) *mqtt.Usage {
	s := &usageSampler{root: "/", counters: a.rt.Usage, podName: a.manager.PodName, logger: a.cfg.Logger,
		now: time.Now, prevCtrs: map[string]runtime.ContainerUsage{}, userHertz: 100}
	return s.sample
}

// sample measures; a failure to measure leaves the usage out of the
// heartbeat (logged at debug level: the next heartbeat tries again).
func (s *usageSampler) sample(ctx context.Context) *mqtt.Usage {
	u, err := s.measure(ctx)
	if err != nil {
		s.logger.Debug("usage not measured", "err", err)
		return nil
	}
	return u
}

func (s *usageSampler) measure(ctx context.Context) (*mqtt.Usage, error) {
	cpu, err := s.readNodeCPU()
	if err != nil {
		return nil, err
	}
	mem, err := readWorkingSet(filepath.Join(s.root, "proc/meminfo"))
	if err != nil {
		return nil, err
	}
	ctrs, err := s.counters(ctx)
	if err != nil {
		return nil, err
	}
	prev := s.prevNode
	s.prevNode = cpu
	pods := s.podUsage(ctrs)
	window := cpu.at.Sub(prev.at)
	if prev.at.IsZero() || window < time.Second || cpu.busyNanos < prev.busyNanos {
		return nil, nil
	}
	return &mqtt.Usage{WindowSeconds: int32(min(window.Round(time.Second), time.Hour) / time.Second),
		CPU: rate(cpu.busyNanos-prev.busyNanos, window), Memory: mem, Pods: pods}, nil
}

// rate is nanoseconds of CPU time per second of window: nanocores.
func rate(nanos uint64, window time.Duration) uint64 {
	return uint64(float64(nanos) / window.Seconds())
}

// readNodeCPU reads the busy time (all but idle and iowait) of the
// "cpu" line of /proc/stat.
func (s *usageSampler) readNodeCPU() (nodeCPU, error) {
	path := filepath.Join(s.root, "proc/stat")
	data, err := os.ReadFile(path)
	if err != nil {
		return nodeCPU{}, err
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) < 6 || fields[0] != "cpu" {
		return nodeCPU{}, fmt.Errorf("%s: first line %q is not the cpu line", path, line)
	}
	var busy uint64
	for i, f := range fields[1:] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nodeCPU{}, fmt.Errorf("%s: cpu field %d: %w", path, i+1, err)
		}
		if i != 3 && i != 4 && i < 8 { // idle, iowait; guest time is in user already
			busy += v
		}
	}
	return nodeCPU{busyNanos: busy * (1e9 / s.userHertz), at: s.now()}, nil
}

// readWorkingSet is MemTotal less MemAvailable from /proc/meminfo, in bytes.
func readWorkingSet(path string) (uint64, error) {
	mem, err := meminfo.Read(path, meminfo.Total, meminfo.Available)
	if err != nil {
		return 0, err
	}
	total, ok1 := mem[meminfo.Total]
	avail, ok2 := mem[meminfo.Available]
	if !ok1 || !ok2 || avail > total {
		return 0, fmt.Errorf("%s: no MemTotal and MemAvailable", path)
	}
	return total - avail, nil
}

// podUsage groups the containers with a previous sample into pods, by
// namespace and name, at most mqtt.MaxUsagePods of them.
func (s *usageSampler) podUsage(ctrs []runtime.ContainerUsage) []mqtt.PodUsage {
	byPod := map[types.UID]*mqtt.PodUsage{}
	next := make(map[string]runtime.ContainerUsage, len(ctrs))
	for _, c := range ctrs {
		next[c.ID] = c
		p, ok := s.prevCtrs[c.ID]
		ns, name, known := s.podName(types.UID(c.PodUID))
		if !ok || !known || c.Name == "" || !c.At.After(p.At) || c.CPUNanos < p.CPUNanos {
			continue
		}
		pu := byPod[types.UID(c.PodUID)]
		if pu == nil {
			pu = &mqtt.PodUsage{Namespace: ns, Name: name}
			byPod[types.UID(c.PodUID)] = pu
		}
		if len(pu.Containers) < mqtt.MaxUsageContainers && !hasContainer(pu, c.Name) {
			pu.Containers = append(pu.Containers, mqtt.ContainerUsage{Name: c.Name,
				CPU: rate(c.CPUNanos-p.CPUNanos, c.At.Sub(p.At)), Memory: c.WorkingSet})
		}
	}
	s.prevCtrs = next
	out := make([]mqtt.PodUsage, 0, len(byPod))
	for _, p := range byPod {
		sort.Slice(p.Containers, func(i, j int) bool { return p.Containers[i].Name < p.Containers[j].Name })
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name })
	return out[:min(len(out), mqtt.MaxUsagePods)]
}

// hasContainer reports whether p has a container of that name already (an
// exited attempt whose cgroup lingers).
func hasContainer(p *mqtt.PodUsage, name string) bool {
	for _, c := range p.Containers {
		if c.Name == name {
			return true
		}
	}
	return false
}
