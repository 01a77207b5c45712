package runtime

import (
	"context"
	"fmt"
	"strings"
	"time"

	v1stats "github.com/containerd/cgroups/v3/cgroup1/stats"
	v2stats "github.com/containerd/cgroups/v3/cgroup2/stats"
	"github.com/containerd/containerd"
	"github.com/containerd/containerd/api/services/tasks/v1"
	"github.com/containerd/containerd/api/types/task"
	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/errdefs"
	"github.com/containerd/containerd/protobuf"
	"github.com/containerd/typeurl/v2"
)

// ContainerStatus implements Runtime. A running container's status comes
// from its kept record (records.go) and its task, read in one call to
// containerd; any other from both records read afresh.
func (c *Containerd) ContainerStatus(ctx context.Context, id string) (ContainerStatus, error) {
	if info, ok := c.records.get(id); ok {
		st, err := c.runningStatus(ctx, info)
		if err != nil || st.State == StateRunning {
			return st, err
		}
		c.records.forget(id)
	}
	epoch := c.records.now()
	ctr, err := c.load(ctx, id)
	if err != nil {
		return ContainerStatus{}, err
	}
	info, err := ctr.Info(ctx, containerd.WithoutRefreshedMetadata)
	if err != nil {
		return ContainerStatus{}, fmt.Errorf("container %s: info: %w", id, err)
	}
	st, err := c.status(ctx, ctr, info)
	if err == nil && st.State == StateRunning {
		c.records.keep(epoch, info)
	}
	return st, err
}

// runningStatus is the status of the container of record info if its task
// runs; otherwise its State is StateUnknown and the caller must look
// again, with the container's record read afresh.
func (c *Containerd) runningStatus(ctx context.Context, info containers.Container) (ContainerStatus, error) {
	resp, err := c.client.TaskService().Get(ctx, &tasks.GetRequest{ContainerID: info.ID})
	err = errdefs.FromGRPC(err)
	if errdefs.IsNotFound(err) {
		return ContainerStatus{State: StateUnknown}, nil
	}
	if err != nil {
		return ContainerStatus{}, fmt.Errorf("container %s: task status: %w", info.ID, err)
	}
	switch resp.Process.Status {
	case task.Status_RUNNING, task.Status_PAUSED, task.Status_PAUSING:
		st := statusFromInfo(info)
		st.State, st.Pid = StateRunning, resp.Process.Pid
		return st, nil
	}
	return ContainerStatus{State: StateUnknown}, nil
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

// status combines the container's labels with its task's state, read in
// one call to containerd's task service (pod workers ask every second).
func (c *Containerd) status(ctx context.Context, ctr containerd.Container, info containers.Container) (ContainerStatus, error) {
	st := statusFromInfo(info)
	resp, err := c.client.TaskService().Get(ctx, &tasks.GetRequest{ContainerID: ctr.ID()})
	err = errdefs.FromGRPC(err)
	if errdefs.IsNotFound(err) {
		st.State = StateCreated
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("container %s: task status: %w", ctr.ID(), err)
	}
	p := resp.Process
	st.Pid = p.Pid
	switch p.Status {
	case task.Status_RUNNING, task.Status_PAUSED, task.Status_PAUSING:
		st.State = StateRunning
	case task.Status_CREATED:
		st.State = StateCreated
	case task.Status_STOPPED:
		st.State, st.ExitCode, st.FinishedAt = StateExited, int(p.ExitStatus), protobuf.FromTimestamp(p.ExitedAt)
		if st.OOMKilled, err = c.stoppedByOOM(ctx, ctr); err != nil {
			return st, fmt.Errorf("container %s: %w", ctr.ID(), err)
		}
	default:
		st.State = StateUnknown
	}
	return st, nil
}

// stoppedByOOM tells whether the kernel's OOM killer ended the stopped task
// of ctr; a task deleted meanwhile tells nothing.
func (c *Containerd) stoppedByOOM(ctx context.Context, ctr containerd.Container) (bool, error) {
	t, err := ctr.Task(ctx, nil)
	if errdefs.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("load task: %w", err)
	}
	return oomKilled(ctx, t)
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
func oomKilled(ctx context.Context, t containerd.Task) (bool, error) {
	m, err := t.Metrics(ctx)
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
