package pods

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Evict asks the pod's worker to evict it: stop its containers, report
// it Failed with reason Evicted and message, and give back its disk
// (containers' writable layers, emptyDir volumes) at once, as the
// kubelet does. false when the pod has no running worker.
func (m *Manager) Evict(uid types.UID, message string) bool {
	m.mu.Lock()
	w, ok := m.workers[uid]
	m.mu.Unlock()
	if !ok || w.isEnded() {
		return false
	}
	w.mu.Lock()
	if w.evictMsg == "" {
		w.evictMsg = message
	}
	w.mu.Unlock()
	w.poke()
	return true
}

// isEnded reports a pod the agent failed (evicted, past its deadline).
func (w *worker) isEnded() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ended
}

// evictIfAsked runs an eviction the Manager was asked for.
func (w *worker) evictIfAsked(ctx context.Context, pod *corev1.Pod) bool {
	w.mu.Lock()
	msg := w.evictMsg
	w.mu.Unlock()
	if msg == "" || w.failed != nil {
		return w.failed != nil
	}
	w.fail(ctx, pod, ReasonEvicted, msg)
	w.reclaim(ctx, pod)
	return true
}

// reclaim removes an evicted pod's containers and volumes (its statuses,
// termination messages included, are kept; its logs stay until the pod
// is deleted).
func (w *worker) reclaim(ctx context.Context, pod *corev1.Pod) {
	for _, st := range w.ctrs {
		if st.id != "" && st.rs != nil {
			w.exitState(st) // reads the message before its file goes
		}
		for _, id := range []string{st.id, st.prevID} {
			if id != "" {
				w.remove(ctx, id)
			}
		}
	}
	if err := w.vols.cleanup(); err != nil {
		w.log.Warn("remove evicted pod's volumes", "err", err)
	}
	w.reclaimed = true
}
