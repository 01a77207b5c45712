package pods

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

// terminate stops the pod's containers together with its grace period,
// reports their final state, then removes them, their logs and volumes.
func (w *worker) terminate(ctx context.Context, pod *corev1.Pod) {
	if w.reclaimed { // evicted: stopped, reported and removed already
		w.removeAll(ctx, pod)
		return
	}
	w.stopInOrder(ctx, pod, grace(pod, w.m.cfg.DefaultGrace))
	if w.last != nil {
		for _, st := range w.ctrs {
			w.observe(ctx, st)
			st.waiting = ""
		}
		w.report(pod)
	}
	w.removeAll(ctx, pod)
	w.finished(ctx, pod)
}

// finished tells the agent that a pod the API is deleting has stopped, so
// it can ask the server to finish the deletion. A pod merely dropped from
// the desired set (force-deleted) or an agent stopping tells nothing.
func (w *worker) finished(ctx context.Context, pod *corev1.Pod) {
	if pod.DeletionTimestamp == nil || ctx.Err() != nil || w.m.cfg.OnFinished == nil {
		return
	}
	w.m.cfg.OnFinished(pod)
}

// removeAll removes every container of the pod, adopted or not.
func (w *worker) removeAll(ctx context.Context, pod *corev1.Pod) {
	cs, err := w.m.rt.ListContainers(ctx)
	if err != nil {
		w.log.Warn("list containers to remove", "err", err)
	}
	for _, c := range cs {
		if c.PodUID == string(pod.UID) {
			w.remove(ctx, c.ID)
		}
	}
	for _, st := range w.ctrs {
		for _, id := range []string{st.id, st.prevID} {
			if id != "" {
				w.remove(ctx, id)
			}
		}
	}
	w.m.teardownNetwork(ctx, pod.UID)
	w.m.removePodCgroup(ctx, pod)
	if err := w.vols.cleanup(); err != nil {
		w.log.Warn("remove pod directory", "err", err)
	}
	if err := w.m.logs.removePod(pod.UID); err != nil {
		w.log.Warn("remove pod logs", "err", err)
	}
	w.log.Info("pod removed")
}
