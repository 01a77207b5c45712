package pods

import (
	"context"
	"io/fs"
	"path/filepath"
	"syscall"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/eviction"
)

// layerUsager is a runtime that can tell a writable layer's size.
type layerUsager interface {
	WritableLayerUsage(ctx context.Context, id string) (int64, error)
}

var _ eviction.Pods = (*Manager)(nil)

// Usage measures the pods that are running (not ended by the agent, not
// being deleted), for the eviction manager.
func (m *Manager) Usage(ctx context.Context) []eviction.PodUsage {
	m.mu.Lock()
	var pods []*corev1.Pod
	for _, w := range m.workers {
		if pod, deleting := w.snapshot(); !deleting && !w.isEnded() {
			pods = append(pods, pod)
		}
	}
	m.mu.Unlock()
	layers := m.layers(ctx)
	out := make([]eviction.PodUsage, 0, len(pods))
	for _, pod := range pods {
		u := eviction.PodUsage{Pod: pod, EmptyDirs: map[string]int64{}, Containers: map[string]int64{}}
		for _, v := range pod.Spec.Volumes {
			if v.EmptyDir == nil {
				continue
			}
			n := diskUsage(filepath.Join(podDir(m.cfg.DataDir, pod.UID), "volumes", v.Name))
			u.EmptyDirs[v.Name] = n
			if v.EmptyDir.Medium != corev1.StorageMediumMemory {
				u.Disk += n
			}
		}
		for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
			n := diskUsage(filepath.Join(podLogDir(m.logs.pods, pod.Namespace, pod.Name, pod.UID), c.Name)) +
				layers[string(pod.UID)+"/"+c.Name]
			u.Containers[c.Name] = n
			u.Disk += n
		}
		u.Memory = m.podMemory(ctx, pod)
		out = append(out, u)
	}
	return out
}

// memoryUsager is a runtime that measures pod cgroups' memory.
type memoryUsager interface {
	PodMemoryWorkingSet(ctx context.Context, podUID string) (int64, error)
}

// podMemory is the pod's working set, 0 when it cannot be read (no pod
// cgroup: a host where it could not be made).
func (m *Manager) podMemory(ctx context.Context, pod *corev1.Pod) int64 {
	mu, ok := m.rt.(memoryUsager)
	if !ok {
		return 0
	}
	n, err := mu.PodMemoryWorkingSet(ctx, string(pod.UID))
	if err != nil {
		return 0
	}
	return n
}

// layers sums the writable layers of the containers by pod UID/name.
func (m *Manager) layers(ctx context.Context) map[string]int64 {
	lu, ok := m.rt.(layerUsager)
	if !ok {
		return nil
	}
	cs, err := m.rt.ListContainers(ctx)
	if err != nil {
		m.log.Warn("list containers for disk usage", "err", err)
		return nil
	}
	out := map[string]int64{}
	for _, c := range cs {
		if n, err := lu.WritableLayerUsage(ctx, c.ID); err == nil {
			out[c.PodUID+"/"+c.Name] += n
		}
	}
	return out
}

// diskUsage is the space the files under dir take (blocks, as du).
func diskUsage(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if info, err := d.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			}
		}
		return nil
	})
	return n
}
