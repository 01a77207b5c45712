package scheduler

import "time"

// The scheduling loop and the binders report what became of a popped pod
// through the methods below. Each first checks that the pod's record is
// still the one in the queue: a pod deleted (or bound by someone else) in
// the meantime is simply dropped.

// current reports whether qp is still the queue's record of its pod.
func (q *queue) current(qp *queuedPod) bool {
	return q.items[qp.info.key] == qp
}

// unschedulable records a failed attempt: the pod waits in the
// unschedulable set (or, if the cluster changed while it was being
// scheduled, in back-off). It reports whether msg differs from the last
// failure recorded, that is, whether the pod's status needs writing.
func (q *queue) unschedulable(p popped, msg string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	qp := p.qp
	if !q.current(qp) || qp.state != stateInFlight {
		return false
	}
	now := q.clock.Now()
	q.failed(qp, now)
	qp.waitingSince = time.Time{}
	changed := msg != qp.lastMessage
	qp.lastMessage = msg
	if qp.moved || q.moveCycle >= p.cycle {
		q.toBackoff(qp, now)
		return changed
	}
	q.park(qp, now)
	return changed
}

// park puts qp in the unschedulable set. flushAt may end up earlier than
// needed (a pod that was due left the set); flush then just scans again.
func (q *queue) park(qp *queuedPod, now time.Time) {
	qp.state, qp.since = stateUnschedulable, now
	if due := now.Add(q.flushAfter); len(q.unsched) == 0 || due.Before(q.flushAt) {
		q.flushAt = due
	}
	q.unsched[qp.info.key] = qp
}

// failed counts a failed attempt and starts its back-off.
func (q *queue) failed(qp *queuedPod, now time.Time) {
	qp.attempts++
	qp.backoffUntil = now.Add(backoff(qp.attempts, q.initial, q.maximum))
}

// assumed records that the pod was placed and its binding is under way.
// false means the pod went away during the cycle: the caller undoes the
// placement.
func (q *queue) assumed(p popped) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.current(p.qp) || p.qp.state != stateInFlight {
		return false
	}
	p.qp.state, p.qp.waitingSince = stateBinding, time.Time{}
	return true
}

// waitPlatforms holds a pod back for retry while its images' platforms
// are looked up: it is tried again after retry, with no failure counted
// and nothing written. false (schedule it now) once it has waited
// maxWait in a row, or when it went away (the caller then finds out).
func (q *queue) waitPlatforms(p popped, retry, maxWait time.Duration) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	qp := p.qp
	if !q.current(qp) || qp.state != stateInFlight {
		return false
	}
	now := q.clock.Now()
	if qp.waitingSince.IsZero() {
		qp.waitingSince = now
	}
	if now.Sub(qp.waitingSince) >= maxWait {
		return false
	}
	qp.backoffUntil = now.Add(retry)
	q.toBackoff(qp, now)
	return true
}

// bound records a written binding. The record stays until the watch shows
// the pod bound, so an older, unbound version of the pod that the watch
// delivers late is not queued again.
func (q *queue) bound(qp *queuedPod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.current(qp) {
		qp.state = stateBound
	}
}

// requeue puts a pod back, after a back-off, that is in state from (in
// flight: its placement could not be recorded; binding: its binding
// failed). It reports whether the pod is still queued (false: it went
// away meanwhile).
func (q *queue) requeue(qp *queuedPod, from queueState) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.current(qp) || qp.state != from {
		return false
	}
	now := q.clock.Now()
	q.failed(qp, now)
	q.toBackoff(qp, now)
	return true
}

// unrecord forgets that msg was written to the pod's status (the write
// failed), so the next failure with the same message writes it again.
func (q *queue) unrecord(qp *queuedPod, msg string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if qp.lastMessage == msg {
		qp.lastMessage = ""
	}
}

// drop forgets qp if it is still the pod's record.
func (q *queue) drop(qp *queuedPod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.current(qp) {
		q.removeFrom(qp)
		delete(q.items, qp.info.key)
	}
}

// moveAll is called when the cluster changed in a way that could make
// unschedulable pods fit: they move to the active heap, or to back-off if
// theirs is not over. Pods being scheduled right now learn of it through
// moveCycle when they fail.
func (q *queue) moveAll() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.moveCycle = q.cycle
	if len(q.unsched) == 0 {
		return
	}
	now := q.clock.Now()
	for key, qp := range q.unsched {
		delete(q.unsched, key)
		q.toBackoff(qp, now)
	}
}

// stats counts the pods in each place, for tests and logs.
func (q *queue) stats() (active, backoff, unschedulable, total int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.active.Len(), q.backoff.Len(), len(q.unsched), len(q.items)
}
