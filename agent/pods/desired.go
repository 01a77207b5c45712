package pods

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Sync sets the full desired set of pods for this node: new pods get a
// worker, known ones get the new spec, and pods not in the set are stopped
// with their grace period and removed. The first Sync after Start also
// removes containers of pods nobody wants any more (left from before an
// agent restart).
func (m *Manager) Sync(pods []*corev1.Pod) {
	want := map[types.UID]bool{}
	for _, p := range pods {
		want[p.UID] = true
	}
	m.gcNetworkOnce(want)
	for _, p := range pods {
		m.Update(p)
	}
	m.mu.Lock()
	for uid, w := range m.workers {
		if !want[uid] {
			w.delete()
		}
	}
	m.desired = true
	first := !m.synced && m.ctx != nil
	m.synced = m.synced || m.ctx != nil
	for uid := range m.workers {
		want[uid] = true // a worker of its own stops it gracefully
	}
	ctx := m.ctx
	m.mu.Unlock()
	if first {
		m.removeOrphans(ctx, want)
	}
}

// Update gives a pod's latest desired state to its worker, starting one
// for a new pod. A pod with a deletionTimestamp is stopped and removed.
func (m *Manager) Update(pod *corev1.Pod) {
	pod = pod.DeepCopy()
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.workers[pod.UID]
	if !ok {
		w = newWorker(m, pod)
		m.workers[pod.UID] = w
		m.startWorker(w)
		return
	}
	w.update(pod)
}

// Delete stops the pod's containers with its grace period and removes
// them and the pod's directory.
func (m *Manager) Delete(uid types.UID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if w, ok := m.workers[uid]; ok {
		w.delete()
	}
}

// removeOrphans stops (with the default grace period) and removes, in
// the background, containers whose pod is not wanted: pods deleted while
// the agent was down. Their pod directories go too.
func (m *Manager) removeOrphans(ctx context.Context, want map[types.UID]bool) {
	cs, err := m.rt.ListContainers(ctx)
	if err != nil {
		m.log.Warn("list containers for orphan cleanup", "err", err)
		return
	}
	var each sync.WaitGroup
	orphans := map[types.UID]bool{}
	for _, c := range cs {
		if want[types.UID(c.PodUID)] {
			continue
		}
		orphans[types.UID(c.PodUID)] = c.PodUID != ""
		m.wg.Add(1)
		each.Add(1)
		go func() {
			defer m.wg.Done()
			defer each.Done()
			m.log.Info("removing container of a pod no longer wanted", "container", c.ID, "pod_uid", c.PodUID)
			if err := m.rt.StopContainer(ctx, c.ID, m.cfg.DefaultGrace); err != nil {
				m.log.Warn("stop orphan container", "container", c.ID, "err", err)
			}
			if err := m.rt.RemoveContainer(ctx, c.ID); err != nil {
				m.log.Warn("remove orphan container", "container", c.ID, "err", err)
			}
			if c.PodUID != "" {
				m.teardownNetwork(ctx, types.UID(c.PodUID))
				v := newVolumes(m.cfg.DataDir, types.UID(c.PodUID), m.lookup)
				if err := v.cleanup(); err != nil {
					m.log.Warn("remove orphan pod dir", "pod_uid", c.PodUID, "err", err)
				}
				if err := m.logs.removePod(types.UID(c.PodUID)); err != nil {
					m.log.Warn("remove orphan pod logs", "pod_uid", c.PodUID, "err", err)
				}
			}
		}()
	}
	m.wg.Add(1)
	go func() { // a pod's cgroup goes once all its containers are gone
		defer m.wg.Done()
		each.Wait()
		for uid, ok := range orphans {
			if ok {
				m.removePodCgroup(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uid, Name: string(uid)}})
			}
		}
	}()
}
