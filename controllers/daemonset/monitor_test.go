package daemonset

import (
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// unavailableMonitor samples the cache continuously and keeps the largest
// number of nodes seen at once without a ready pod of the DaemonSet.
type unavailableMonitor struct {
	done chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	peak int
}

func (h *harness) monitorUnavailable(ds *appsv1.DaemonSet, nodes []string) *unavailableMonitor {
	m := &unavailableMonitor{done: make(chan struct{})}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		for {
			select {
			case <-m.done:
				return
			case <-time.After(2 * time.Millisecond):
			}
			byNode := h.podsByNode(ds)
			n := 0
			for _, node := range nodes {
				if !anyReady(byNode[node]) {
					n++
				}
			}
			m.mu.Lock()
			m.peak = max(m.peak, n)
			m.mu.Unlock()
		}
	}()
	return m
}

func (m *unavailableMonitor) stop() int {
	close(m.done)
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}

func anyReady(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if c := api.PodCondition(p, corev1.PodReady); c != nil && c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil {
			return true
		}
	}
	return false
}
