package runtimetest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/errdefs"
	"github.com/containerd/containerd/namespaces"
)

// removeAll kills and deletes every task and container in every namespace.
func (d *Daemon) removeAll(ctx context.Context) error {
	c, err := containerd.New(d.Address)
	if err != nil {
		return fmt.Errorf("connect to containerd for cleanup: %w", err)
	}
	defer c.Close()
	nss, err := c.NamespaceService().List(ctx)
	if err != nil {
		return fmt.Errorf("list namespaces: %w", err)
	}
	var errs []error
	for _, ns := range nss {
		errs = append(errs, RemoveContainers(namespaces.WithNamespace(ctx, ns), c))
	}
	return errors.Join(errs...)
}

// RemoveContainers kills and deletes every task and container in the
// namespace carried by ctx.
func RemoveContainers(ctx context.Context, c *containerd.Client) error {
	ctrs, err := c.Containers(ctx)
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	var errs []error
	for _, ctr := range ctrs {
		if task, err := ctr.Task(ctx, nil); err == nil {
			if _, err := task.Delete(ctx, containerd.WithProcessKill); err != nil && !errdefs.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("delete task %s: %w", ctr.ID(), err))
			}
		}
		if err := ctr.Delete(ctx, containerd.WithSnapshotCleanup); err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete container %s: %w", ctr.ID(), err))
		}
	}
	return errors.Join(errs...)
}

// CleanNamespace removes every container (as RemoveContainers) and every
// image of the namespace carried by ctx, so the next test starts empty.
func CleanNamespace(ctx context.Context, c *containerd.Client) error {
	errs := []error{RemoveContainers(ctx, c)}
	imgs, err := c.ImageService().List(ctx)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("list images: %w", err))...)
	}
	for _, img := range imgs {
		if err := c.ImageService().Delete(ctx, img.Name); err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete image %s: %w", img.Name, err))
		}
	}
	return errors.Join(errs...)
}

// unmountUnder detaches any mount left below dir (deepest first), so the
// directory can be removed even after a crashed test.
func unmountUnder(dir string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("read mountinfo: %w", err)
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && strings.HasPrefix(fields[4], dir+"/") {
			points = append(points, fields[4])
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(points)))
	var errs []error
	for _, p := range points {
		if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil {
			errs = append(errs, fmt.Errorf("unmount %s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}
