package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1stats "github.com/containerd/cgroups/v3/cgroup1/stats"
	v2stats "github.com/containerd/cgroups/v3/cgroup2/stats"
	"github.com/containerd/containerd/api/services/tasks/v1"
	"github.com/containerd/containerd/errdefs"
	"github.com/containerd/typeurl/v2"
)

// ContainerUsage is one running container's cgroup counters at one
// moment: its cumulative CPU time and its memory working set (usage less
// the inactive page cache, as the kubelet counts it).
type ContainerUsage struct {
	ID     string
	PodUID string
	Name   string
	// CPUNanos is the CPU time the container's cgroup used since it
	// started, in nanoseconds.
	CPUNanos uint64
	// WorkingSet is the memory working set in bytes.
	WorkingSet uint64
	At         time.Time
}

// Usage reports the counters of every running container this package
// created, from the shims' cgroup metrics (cgroup v1 or v2) in one call
// to containerd's task service.
func (c *Containerd) Usage(ctx context.Context) ([]ContainerUsage, error) {
	resp, err := c.client.TaskService().Metrics(ctx, &tasks.MetricsRequest{})
	if err != nil {
		return nil, fmt.Errorf("task metrics: %w", errdefs.FromGRPC(err))
	}
	out := make([]ContainerUsage, 0, len(resp.Metrics))
	for _, m := range resp.Metrics {
		info, err := c.record(ctx, m.ID)
		if errors.Is(err, ErrNotFound) {
			continue // someone else's container, or one removed meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", m.ID, err)
		}
		u, err := usageOf(m.Data)
		if err != nil {
			return nil, fmt.Errorf("container %s: %w", m.ID, err)
		}
		u.ID, u.PodUID, u.Name = m.ID, info.Labels[LabelPodUID], info.Labels[LabelContainerName]
		u.At = m.Timestamp.AsTime()
		out = append(out, u)
	}
	return out, nil
}

// usageOf reads the CPU and memory counters of one task's metrics.
func usageOf(data typeurl.Any) (ContainerUsage, error) {
	v, err := typeurl.UnmarshalAny(data)
	if err != nil {
		return ContainerUsage{}, fmt.Errorf("decode task metrics: %w", err)
	}
	switch s := v.(type) {
	case *v1stats.Metrics:
		mem := s.GetMemory()
		return ContainerUsage{CPUNanos: s.GetCPU().GetUsage().GetTotal(),
			WorkingSet: workingSet(mem.GetUsage().GetUsage(), mem.GetTotalInactiveFile())}, nil
	case *v2stats.Metrics:
		mem := s.GetMemory()
		return ContainerUsage{CPUNanos: s.GetCPU().GetUsageUsec() * 1000,
			WorkingSet: workingSet(mem.GetUsage(), mem.GetInactiveFile())}, nil
	}
	return ContainerUsage{}, fmt.Errorf("task metrics of unknown type %T", v)
}

// workingSet is usage less the inactive file cache, never below zero.
func workingSet(usage, inactiveFile uint64) uint64 {
	if inactiveFile > usage {
		return 0
	}
	return usage - inactiveFile
}
