package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/cio"
	"github.com/containerd/containerd/errdefs"
	"github.com/containerd/containerd/plugin"

	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
	"github.com/bramble-edge/bramble/imageregistry"
)

// Labels this package keeps on its containers. Users' labels may not use
// the prefix.
const (
	labelPrefix = "bramble.io/"
	// LabelManaged is "true" on every container this package creates.
	LabelManaged       = labelPrefix + "managed"
	LabelPodUID        = labelPrefix + "pod-uid"
	LabelContainerName = labelPrefix + "container-name"
	labelLogPath       = labelPrefix + "log-path"
	labelImageDigest   = labelPrefix + "image-digest"
	labelStartedAt     = labelPrefix + "started-at"
	labelConsole       = labelPrefix + "console" // "stdin", "once", "tty": the agent holds its IO
)

// cleanupTimeout bounds the removal of a half-made container, which runs
// even when the caller's context has ended.
const cleanupTimeout = 30 * time.Second

// RunContainer implements Runtime.
func (c *Containerd) RunContainer(ctx context.Context, s ContainerSpec) error {
	if err := s.Validate(); err != nil {
		return err
	}
	name, err := imageregistry.NormalizeRef(s.Image)
	if err != nil {
		return fmt.Errorf("container %s: %w", s.ID, err)
	}
	img, err := c.readyImage(ctx, name)
	if err != nil {
		return fmt.Errorf("container %s: %w", s.ID, err)
	}
	ctr, err := c.create(ctx, img, s)
	if err != nil {
		return err
	}
	if err := c.start(ctx, ctr, s); err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		return errors.Join(err, c.remove(cctx, ctr))
	}
	// The container runs; a lost last-used stamp only makes image GC see
	// the image as older than it is.
	if err := c.markUsed(ctx, name, time.Now()); err != nil {
		c.log.Warn("image last-used not recorded", "image", name, "err", err)
	}
	return nil
}

// create makes the container: its writable layer, OCI spec and labels.
func (c *Containerd) create(ctx context.Context, img containerd.Image, s ContainerSpec) (containerd.Container, error) {
	opts, err := c.specOpts(ctx, img, s)
	if err != nil {
		return nil, fmt.Errorf("container %s: %w", s.ID, err)
	}
	ctr, err := c.client.NewContainer(ctx, s.ID,
		containerd.WithImage(img),
		containerd.WithSnapshotter(c.cfg.Snapshotter),
		containerd.WithNewSnapshot(s.ID, img),
		containerd.WithRuntime(plugin.RuntimeRuncV2, nil),
		containerd.WithNewSpec(opts...),
		containerd.WithImageStopSignal(img, "SIGTERM"),
		containerd.WithContainerLabels(containerLabels(s, img.Target().Digest.String())),
	)
	if errdefs.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create container %s: it already exists", s.ID)
	}
	if err != nil {
		return nil, fmt.Errorf("create container %s: %w", s.ID, err)
	}
	return ctr, nil
}

func containerLabels(s ContainerSpec, imageDigest string) map[string]string {
	l := make(map[string]string, len(s.Labels)+5)
	for k, v := range s.Labels {
		l[k] = v
	}
	l[LabelManaged] = "true"
	l[LabelPodUID] = s.PodUID
	l[LabelContainerName] = s.Name
	l[labelLogPath] = s.LogPath
	l[labelImageDigest] = imageDigest
	if v := consoleLabel(s); v != "" {
		l[labelConsole] = v
	}
	return l
}

// start creates the task, with the log driver attached, and starts it.
func (c *Containerd) start(ctx context.Context, ctr containerd.Container, s ContainerSpec) error {
	if s.Stdin || s.TTY {
		return c.startWithConsole(ctx, ctr, s)
	}
	task, err := ctr.NewTask(ctx, c.logIO(s.LogPath))
	if err != nil {
		return fmt.Errorf("create task %s: %w", s.ID, err)
	}
	return c.startTask(ctx, ctr, task, s)
}

// startTask starts the created task and records its start time.
func (c *Containerd) startTask(ctx context.Context, ctr containerd.Container, task containerd.Task, s ContainerSpec) error {
	started := time.Now()
	if err := task.Start(ctx); err != nil {
		return fmt.Errorf("start task %s: %w", s.ID, err)
	}
	label := map[string]string{labelStartedAt: started.UTC().Format(time.RFC3339Nano)}
	_, err := ctr.SetLabels(ctx, label)
	c.records.forget(s.ID) // after the change: a record read before it is not kept
	if err != nil {
		return fmt.Errorf("container %s: record start time: %w", s.ID, err)
	}
	c.log.Info("started container", "container", s.ID, "pod", s.PodUID, "pid", task.Pid())
	return nil
}

// logIO sends the task's output to a log driver process the shim starts
// and owns, so logging does not depend on this process being alive.
func (c *Containerd) logIO(path string) cio.Creator {
	if path == "" {
		return cio.NullIO
	}
	cfg := logdriver.Config{Path: path, MaxBytes: c.cfg.LogMaxBytes, MaxFiles: c.cfg.LogMaxFiles}
	// One argument pair only: the shim passes query pairs in map order.
	return cio.BinaryIO(c.cfg.LogDriver, map[string]string{logdriver.Command: cfg.Encode()})
}

// RemoveContainer implements Runtime.
func (c *Containerd) RemoveContainer(ctx context.Context, id string) error {
	ctr, err := c.load(ctx, id)
	if err != nil {
		return err
	}
	return c.remove(ctx, ctr)
}

func (c *Containerd) remove(ctx context.Context, ctr containerd.Container) error {
	c.records.forget(ctr.ID())
	task, err := ctr.Task(ctx, nil)
	switch {
	case err == nil:
		if _, err := task.Delete(ctx, containerd.WithProcessKill); err != nil && !errdefs.IsNotFound(err) {
			return fmt.Errorf("delete task %s: %w", ctr.ID(), err)
		}
	case !errdefs.IsNotFound(err):
		return fmt.Errorf("load task %s: %w", ctr.ID(), err)
	}
	if err := ctr.Delete(ctx, containerd.WithSnapshotCleanup); err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("delete container %s: %w", ctr.ID(), err)
	}
	return nil
}

// load returns one of this package's containers, or ErrNotFound. Its
// labels come with the container's record: one call to containerd.
func (c *Containerd) load(ctx context.Context, id string) (containerd.Container, error) {
	ctr, err := c.client.LoadContainer(ctx, id)
	if errdefs.IsNotFound(err) {
		return nil, fmt.Errorf("container %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load container %s: %w", id, err)
	}
	info, err := ctr.Info(ctx, containerd.WithoutRefreshedMetadata)
	if err != nil {
		return nil, fmt.Errorf("container %s: labels: %w", id, err)
	}
	if info.Labels[LabelManaged] != "true" {
		return nil, fmt.Errorf("container %s is not managed by bramble: %w", id, ErrNotFound)
	}
	return ctr, nil
}
