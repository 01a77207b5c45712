package runtime

import (
	"context"
	"fmt"
	"strings"
	"time"

	v1stats "github.com/containerd/cgroups/v3/cgroup1/stats"
	v2stats "github.com/containerd/cgroups/v3/cgroup2/stats"
	"github.com/containerd/containerd"
	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/errdefs"
	"github.com/containerd/typeurl/v2"
)

// ContainerStatus implements Runtime.
func (c *Containerd) ContainerStatus(ctx context.Context, id string) (ContainerStatus, error) {
	ctr, err := c.load(ctx, id)
	if err != nil {
		return ContainerStatus{}, err
	}
	info, err := ctr.Info(ctx, containerd.WithoutRefreshedMetadata)
	if err != nil {
		return ContainerStatus{}, fmt.Errorf("container %s: info: %w", id, err)
	}
	return c.status(ctx, ctr, info)
}

// ListContainers implements Runtime. A container removed while listing is
// left out.
func (c *Containerd) ListContainers(ctx context.Context) ([]ContainerStatus, error) {
	ctrs, err := c.client.Containers(ctx, fmt.Sprintf("labels.%q==true", LabelManaged))
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	out := make([]ContainerStatus, 0, len(ctrs))
	for _, ctr := range ctrs {
		info, err := ctr.Info(ctx, containerd.WithoutRefreshedMetadata)
		if err != nil {
			return nil, fmt.Errorf("container %s: info: %w", ctr.ID(), err)
		}
		st, err := c.status(ctx, ctr, info)
		if errdefs.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// status combines the container's labels with its task's state.
func (c *Containerd) status(ctx context.Context, ctr containerd.Container, info containers.Container) (ContainerStatus, error) {
	st := statusFromInfo(info)
	task, err := ctr.Task(ctx, nil)
	if errdefs.IsNotFound(err) {
		st.State = StateCreated
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("container %s: load task: %w", ctr.ID(), err)
	}
	ts, err := task.Status(ctx)
	if err != nil {
		return st, fmt.Errorf("container %s: task status: %w", ctr.ID(), err)
	}
	st.Pid = task.Pid()
	switch ts.Status {
	case containerd.Running, containerd.Paused, containerd.Pausing:
		st.State = StateRunning
	case containerd.Created:
		st.State = StateCreated
	case containerd.Stopped:
		st.State, st.ExitCode, st.FinishedAt = StateExited, int(ts.ExitStatus), ts.ExitTime
		if st.OOMKilled, err = oomKilled(ctx, task); err != nil {
			return st, fmt.Errorf("container %s: %w", ctr.ID(), err)
		}
	default:
		st.State = StateUnknown
	}
	return st, nil
}

func statusFromInfo(info containers.Container) ContainerStatus {
	st := ContainerStatus{
		ID:          info.ID,
		PodUID:      info.Labels[LabelPodUID],
		Name:        info.Labels[LabelContainerName],
		Image:       info.Image,
		ImageDigest: info.Labels[labelImageDigest],
		LogPath:     info.Labels[labelLogPath],
		CreatedAt:   info.CreatedAt,
		Labels:      map[string]string{},
	}
	if t, err := time.Parse(time.RFC3339Nano, info.Labels[labelStartedAt]); err == nil {
		st.StartedAt = t
	}
	for k, v := range info.Labels {
		if !strings.HasPrefix(k, labelPrefix) {
			st.Labels[k] = v
		}
	}
	return st
}

// oomKilled reports whether the kernel's OOM killer struck in the task's
// memory cgroup, from the shim's metrics of the stopped (not yet deleted)
// task: memory.oom_control's oom_kill on cgroup v1, memory.events' oom_kill
// on v2.
func oomKilled(ctx context.Context, task containerd.Task) (bool, error) {
	m, err := task.Metrics(ctx)
	if errdefs.IsNotFound(err) {
		return false, nil // the cgroup is gone; nothing left to tell
	}
	if err != nil {
		return false, fmt.Errorf("task metrics: %w", err)
	}
	v, err := typeurl.UnmarshalAny(m.Data)
	if err != nil {
		return false, fmt.Errorf("decode task metrics: %w", err)
	}
	switch s := v.(type) {
	case *v1stats.Metrics:
		return s.GetMemoryOomControl().GetOomKill() > 0, nil
	case *v2stats.Metrics:
		return s.GetMemoryEvents().GetOomKill() > 0, nil
	}
	return false, fmt.Errorf("task metrics of unknown type %T", v)
}
