package scheduler

import "context"

// ClaimNodeSelector is the part of a Binder that writes the
// volume.kubernetes.io/selected-node annotation on a WaitForFirstConsumer
// claim, so its provisioner makes the volume on the pod's node. A Binder
// without it leaves such claims to wait.
type ClaimNodeSelector interface {
	SelectNode(ctx context.Context, namespace, claim, node string) error
}

// selectNode writes the chosen node on the pod's unbound
// WaitForFirstConsumer claims before the pod is bound, as kube-scheduler's
// VolumeBinding PreBind does; false when that failed and the pod was
// handed back to the queue (its placement forgotten).
func (s *Scheduler) selectNode(ctx context.Context, p popped, vols *podVolumes, node string) bool {
	w, ok := s.cfg.Binder.(ClaimNodeSelector)
	if vols == nil || len(vols.delayed) == 0 || !ok {
		return true
	}
	for _, claim := range vols.delayed {
		err := w.SelectNode(ctx, p.info.pod.Namespace, claim, node)
		if err == nil || ctx.Err() != nil {
			continue
		}
		s.log.Warn("cannot select the node of a claim; retrying after back-off", "pod", p.info.key, "claim", claim, "err", err)
		if s.cache.forget(p.info.key, p.info.uid) {
			s.queue.moveAll()
		}
		s.queue.requeue(p.qp, stateBinding)
		return false
	}
	return ctx.Err() == nil
}
