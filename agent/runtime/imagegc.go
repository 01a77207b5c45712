package runtime

import (
	"context"
	"fmt"
	"sort"
	"syscall"
	"time"

	"github.com/containerd/containerd/images"

	"github.com/bramble-edge/bramble/imageregistry"
)

// GarbageCollectImages implements Runtime. An image is in use when any
// container in the namespace was created from it; in-use and kept images
// are never removed. Deletion is synchronous, so the freed space shows in
// the next measurement.
func (c *Containerd) GarbageCollectImages(ctx context.Context, p ImageGCPolicy) ([]string, error) {
	if p.Path == "" {
		p.Path = DefaultImageFSPath
	}
	if p.MinFreePercent < 0 || p.MinFreePercent > 100 {
		return nil, fmt.Errorf("image gc: minFreePercent %g: want 0-100", p.MinFreePercent)
	}
	if ok, err := enoughFree(p); ok || err != nil {
		return nil, err
	}
	candidates, err := c.unusedImages(ctx, p.Keep)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, img := range candidates {
		if err := c.client.ImageService().Delete(ctx, img.Name, images.SynchronousDelete()); err != nil {
			return removed, fmt.Errorf("image gc: delete %s: %w", img.Name, err)
		}
		removed = append(removed, img.Name)
		c.log.Info("removed unused image", "image", img.Name, "size", img.Size)
		if ok, err := enoughFree(p); ok || err != nil {
			return removed, err
		}
	}
	return removed, nil
}

// unusedImages lists the images no container uses and nobody keeps, least
// recently used (or, never used, oldest) first.
func (c *Containerd) unusedImages(ctx context.Context, keep []string) ([]Image, error) {
	used := map[string]bool{}
	for _, k := range keep {
		name, err := imageregistry.NormalizeRef(k)
		if err != nil {
			return nil, fmt.Errorf("image gc: keep: %w", err)
		}
		used[name] = true
	}
	ctrs, err := c.client.Containers(ctx)
	if err != nil {
		return nil, fmt.Errorf("image gc: list containers: %w", err)
	}
	for _, ctr := range ctrs {
		info, err := ctr.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("image gc: container %s: %w", ctr.ID(), err)
		}
		used[info.Image] = true
	}
	all, err := c.ListImages(ctx)
	if err != nil {
		return nil, fmt.Errorf("image gc: %w", err)
	}
	var out []Image
	for _, img := range all {
		if !used[img.Name] {
			out = append(out, img)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return lastTouched(out[i]).Before(lastTouched(out[j])) })
	return out, nil
}

func lastTouched(img Image) time.Time {
	if !img.LastUsed.IsZero() {
		return img.LastUsed
	}
	return img.CreatedAt
}

// enoughFree reports whether the filesystem holding p.Path has at least
// p.MinFreePercent of its space available.
func enoughFree(p ImageGCPolicy) (bool, error) {
	free, err := FreePercent(p.Path)
	if err != nil {
		return false, fmt.Errorf("image gc: %w", err)
	}
	return free >= p.MinFreePercent, nil
}

// FreePercent is the share of the filesystem holding path that an
// unprivileged user may still fill (root-reserved blocks count as used, as
// df shows them); 100 for a filesystem that reports no blocks.
func FreePercent(path string) (float64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", path, err)
	}
	if st.Blocks == 0 {
		return 100, nil
	}
	return float64(st.Bavail) / float64(st.Blocks) * 100, nil
}
