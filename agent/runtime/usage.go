package runtime

import (
	"context"
	"fmt"
)

// WritableLayerUsage is the bytes a container's writable layer holds
// (what its processes wrote outside volumes), as the snapshotter counts
// them; the eviction manager adds it to the pod's ephemeral storage.
func (c *Containerd) WritableLayerUsage(ctx context.Context, id string) (int64, error) {
	info, err := c.record(ctx, id)
	if err != nil {
		return 0, err
	}
	if info.SnapshotKey == "" {
		return 0, nil
	}
	u, err := c.client.SnapshotService(info.Snapshotter).Usage(ctx, info.SnapshotKey)
	if err != nil {
		return 0, fmt.Errorf("container %s: snapshot usage: %w", id, err)
	}
	return u.Size, nil
}
