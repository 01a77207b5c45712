package scheduler

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// loop is the scheduling loop: one pod at a time, each decided on a
// snapshot brought up to date just before.
func (s *Scheduler) loop(ctx context.Context) {
	for {
		p, err := s.queue.Pop(ctx)
		if err != nil {
			return
		}
		s.scheduleOne(ctx, p)
	}
}

// scheduleOne decides one pod. A fitting pod is assumed on its node in the
// cache at once (the next decision sees it there) and its binding goes to
// the workers; a pod that fits nowhere waits in the queue, and its status
// is written when the reason changed.
func (s *Scheduler) scheduleOne(ctx context.Context, p popped) {
	s.cache.updateSnapshot(s.snap)
	if platformsPending(p.info, s.snap, s.cfg.ImagePlatforms) && s.queue.waitPlatforms(p, platformsRetry, platformsMaxWait) {
		s.log.Debug("image platforms being looked up; pod waits", "pod", p.info.key)
		return
	}
	start := time.Now()
	vols, msg := s.vols.resolve(p.info.pod)
	if msg != "" {
		countAttempt(start, resultUnschedulable)
		s.unschedulable(ctx, p, fmt.Sprintf("0/%d nodes are available: %s.", len(s.snap.list), msg))
		return
	}
	node, err := s.algo.scheduleWithVolumes(p.info, s.snap, vols)
	if err != nil {
		countAttempt(start, resultUnschedulable)
		s.unschedulable(ctx, p, s.tryPreempt(ctx, p, err))
		return
	}
	if err := s.cache.assume(p.info, node); err != nil {
		countAttempt(start, resultError)
		s.log.Debug("cannot place pod; retrying after back-off", "pod", p.info.key, "err", err)
		s.queue.requeue(p.qp, stateInFlight)
		return
	}
	if !s.queue.assumed(p) {
		s.cache.forget(p.info.key, p.info.uid) // deleted or bound while it was decided
		return
	}
	countAttempt(start, resultScheduled)
	s.dispatch(ctx, func(ctx context.Context) {
		if s.selectNode(ctx, p, vols, node) {
			s.bind(ctx, p.qp, p.info, node)
		}
	})
}

// While an image's platforms are being looked up (platformsPending), its
// pod is tried again every platformsRetry, without a status write, for at
// most platformsMaxWait in a row; then it is placed on what is known.
const (
	platformsRetry   = 250 * time.Millisecond
	platformsMaxWait = 15 * time.Second
)

// unschedulable parks a pod that fits nowhere and, if the message changed
// since its last failure, has its status and an event written.
func (s *Scheduler) unschedulable(ctx context.Context, p popped, msg string) {
	s.log.Debug("pod does not fit", "pod", p.info.key, "reason", msg)
	if !s.queue.unschedulable(p, msg) {
		return
	}
	pod := p.info.pod
	s.dispatch(ctx, func(ctx context.Context) { s.reportUnschedulable(ctx, p.qp, pod, msg) })
}

// schedulerNames are the spec.schedulerName values bramble schedules.
var schedulerNames = []string{"", corev1.DefaultSchedulerName, "bramble"}

// responsible reports whether the pod is bramble's to schedule.
func responsible(pod *corev1.Pod) bool {
	for _, n := range schedulerNames {
		if pod.Spec.SchedulerName == n {
			return true
		}
	}
	return false
}

// nodeHandler feeds node changes to the cache; a change that could let a
// waiting pod fit sends the unschedulable pods back to the active queue.
type nodeHandler struct{ s *Scheduler }

func (h nodeHandler) upsert(obj api.Object) {
	if n, ok := obj.(*corev1.Node); ok && h.s.cache.setNode(n) {
		h.s.queue.moveAll()
	}
}

func (h nodeHandler) remove(name string) {
	h.s.cache.removeNode(name)
}

// podHandler sorts pod changes: bound pods are counted in the cache (and
// leave the queue); unbound pods that bramble schedules are queued; the
// rest (being deleted, finished, another scheduler's) leave the queue.
type podHandler struct{ s *Scheduler }

func (h podHandler) upsert(obj api.Object) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	s := h.s
	info := podInfoFor(s.previous(pod), pod)
	switch {
	case pod.Spec.NodeName != "":
		s.queue.delete(info.key)
		if s.cache.addPod(info) {
			s.queue.moveAll()
		}
		s.noteCritical(info)
	case pod.DeletionTimestamp != nil || info.terminal || !responsible(pod):
		s.queue.delete(info.key)
	default:
		s.queue.add(info)
	}
}

// remove handles a deleted pod; freeing a node's resources may let waiting
// pods fit.
func (h podHandler) remove(key string) {
	h.s.queue.delete(key)
	if h.s.cache.removePod(key) {
		h.s.queue.moveAll()
	}
}

// previous is the podInfo of the version of pod the scheduler holds, in
// the cache (counted on a node) or else in the queue; nil when it holds
// none. The key is built on the stack: most versions find one, and reuse
// it (podInfoFor).
func (s *Scheduler) previous(pod *corev1.Pod) *podInfo {
	var buf [128]byte
	key := append(append(append(buf[:0], pod.Namespace...), '/'), pod.Name...)
	if p := s.cache.infoOf(key); p != nil {
		return p
	}
	return s.queue.infoOf(key)
}
