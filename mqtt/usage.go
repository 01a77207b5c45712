package mqtt

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Usage is the resource usage an agent measured over the last heartbeat
// interval, sent with the heartbeat (docs/OBSERVABILITY.md): the node's and
// each running container's CPU rate and memory working set. It is compact
// (short keys, integers) and bounded, so a heartbeat stays small: a node
// with 110 pods of two containers adds about 16 KiB.
type Usage struct {
	// WindowSeconds is the span the CPU rates are averaged over.
	WindowSeconds int32 `json:"window"`
	// CPU is the node's CPU usage in nanocores, Memory its working set in
	// bytes.
	CPU    uint64     `json:"cpu"`
	Memory uint64     `json:"mem"`
	Pods   []PodUsage `json:"pods,omitempty"`
}

// PodUsage is one pod's containers' usage.
type PodUsage struct {
	Namespace  string           `json:"ns"`
	Name       string           `json:"name"`
	Containers []ContainerUsage `json:"c"`
}

// ContainerUsage is one container's CPU rate (nanocores) and memory
// working set (bytes).
type ContainerUsage struct {
	Name   string `json:"n"`
	CPU    uint64 `json:"cpu"`
	Memory uint64 `json:"mem"`
}

// Bounds of a Usage: more pods than a node runs, more containers than a
// pod has, figures a machine cannot reach (1,024 cores, 16 TiB).
const (
	MaxUsagePods          = 512
	MaxUsageContainers    = 64
	maxUsageNanoCores     = 1024 * 1e9
	maxUsageMemoryBytes   = 16 << 40
	maxUsageWindowSeconds = 3600
)

func (u *Usage) check() error {
	if u.WindowSeconds < 1 || u.WindowSeconds > maxUsageWindowSeconds {
		return fmt.Errorf("window: got %d, want 1 to %d", u.WindowSeconds, maxUsageWindowSeconds)
	}
	if err := checkFigures("", u.CPU, u.Memory); err != nil {
		return err
	}
	if len(u.Pods) > MaxUsagePods {
		return fmt.Errorf("pods: got %d, want at most %d", len(u.Pods), MaxUsagePods)
	}
	return checkPods(u.Pods)
}

func (p *PodUsage) podKey() (string, string) { return p.Namespace, p.Name }

func (p *PodUsage) check() error {
	if err := checkPodName("ns", p.Namespace, p.Name); err != nil {
		return err
	}
	if len(p.Containers) == 0 || len(p.Containers) > MaxUsageContainers {
		return fmt.Errorf("c: got %d containers, want 1 to %d", len(p.Containers), MaxUsageContainers)
	}
	seen := make(map[string]bool, len(p.Containers))
	for i, c := range p.Containers {
		if msgs := validation.IsDNS1123Label(c.Name); len(msgs) > 0 {
			return fmt.Errorf("c[%d].n: %q: %s", i, c.Name, strings.Join(msgs, "; "))
		}
		if seen[c.Name] {
			return fmt.Errorf("c[%d].n: %s is reported twice", i, c.Name)
		}
		seen[c.Name] = true
		if err := checkFigures(fmt.Sprintf("c[%d].", i), c.CPU, c.Memory); err != nil {
			return err
		}
	}
	return nil
}

func checkFigures(prefix string, cpu, mem uint64) error {
	switch {
	case cpu > maxUsageNanoCores:
		return fmt.Errorf("%scpu: got %d nanocores, want at most %d", prefix, cpu, uint64(maxUsageNanoCores))
	case mem > maxUsageMemoryBytes:
		return fmt.Errorf("%smem: got %d bytes, want at most %d", prefix, mem, uint64(maxUsageMemoryBytes))
	}
	return nil
}
