package nodestatus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

type podKey struct{ namespace, name string }

// podState is the last status a node reported for one pod: pending (status
// set) until written, then only its hash, to recognise a repeat.
type podState struct {
	node   string
	uid    string
	hash   uint64
	status *corev1.PodStatus
	seen   time.Time
	// finished: the node stopped the pod and asks for its deletion.
	finished bool
}

// podMemory is how long the hash of a written pod status is kept after the
// last report about the pod.
const podMemory = time.Hour

// onPodStatus handles a batch of pod statuses: each one that differs from
// the last report about that pod is queued for writing.
func (m *Monitor) onPodStatus(topic string, payload []byte) {
	if m.stopped.Load() {
		return
	}
	node, ok := mqtt.NodeOfTopic(topic)
	if !ok || !mqtt.IsNodeTopic(topic, node, "pods/status") {
		return
	}
	r, hashes, err := mqtt.DecodePodStatusHashed(payload)
	if err == nil && r.Node != node {
		err = fmt.Errorf("node: got %q, want %q (the topic's node)", r.Node, node)
	}
	if err != nil {
		m.reject(node, "pod status", err)
		return
	}
	m.counters.podReports.Add(1)
	for _, k := range m.notePods(node, r.Pods, hashes) {
		m.queue.Add(podQueueKey(k))
	}
}

// notePods remembers each reported status and returns the pods whose
// status differs from the last report about them. hashes, when not nil,
// are the statuses' hashes as the decoder gave them (a repeat sent with
// the same bytes has the same hash); otherwise each status is hashed here.
func (m *Monitor) notePods(node string, pods []mqtt.PodStatusEntry, hashes []uint64) []podKey {
	now := m.cfg.Now()
	if hashes == nil {
		hashes = make([]uint64, len(pods))
		for i := range pods {
			hashes[i] = hashStatus(&pods[i].Status)
		}
	}
	var changed []podKey
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range pods {
		p := &pods[i]
		key, h := podKey{p.Namespace, p.Name}, hashes[i]
		ps := m.pods[key]
		if ps != nil && ps.uid == p.UID && ps.node == node && ps.hash == h && ps.finished == p.Finished {
			ps.seen = now
			continue
		}
		next := podState{node: node, uid: p.UID, hash: h, status: &p.Status, seen: now, finished: p.Finished}
		if ps != nil {
			*ps = next // readers copy it under m.mu
		} else {
			m.pods[key] = &next
		}
		if changed == nil {
			changed = make([]podKey, 0, len(pods)-i)
		}
		changed = append(changed, key)
	}
	return changed
}

func hashStatus(s *corev1.PodStatus) uint64 {
	data, _ := json.Marshal(s) // a decoded PodStatus always encodes
	h := fnv.New64a()
	h.Write(data)
	return h.Sum64()
}

// syncPod writes a pending pod status when the pod is still the one the
// node reported about, bound to that node, and its stored status differs.
func (m *Monitor) syncPod(ctx context.Context, key podKey) error {
	for attempt := range maxAttempts {
		m.mu.Lock()
		ps := m.pods[key]
		if ps == nil || ps.status == nil {
			m.mu.Unlock()
			return nil
		}
		want := *ps
		m.mu.Unlock()

		err := m.writePod(ctx, key, &want, attempt == 0)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("pod %s/%s: still conflicting after %d attempts", key.namespace, key.name, maxAttempts)
}

func (m *Monitor) writePod(ctx context.Context, key podKey, want *podState, mayCache bool) error {
	var pod, upd *corev1.Pod
	if mayCache {
		pod, upd = m.cachedWrite(key, want)
	}
	if pod == nil {
		var err error
		if pod, err = m.reportedPod(ctx, key, want); pod == nil {
			return err
		}
		upd = statusPod(pod, want.status)
		if upd == nil || podStatusEqual(&upd.Status, &pod.Status) {
			return m.afterWrite(ctx, key, want)
		}
	}
	if err := m.limiter.wait(ctx); err != nil {
		return err
	}
	next := upd.Status // read after the write, which takes upd
	if err := m.writeStatus(ctx, pod, upd, want.status); err != nil {
		return fmt.Errorf("update status of pod %s/%s: %w", key.namespace, key.name, err)
	}
	m.counters.podWrites.Add(1)
	m.reasonEvent(ctx, pod, &next)
	return m.afterWrite(ctx, key, want)
}

// statusPod is the write of reported's merge into pod's stored status
// (mergePodStatusInto; nil when it gives false): a pod carrying only what names
// pod and its precondition, and the merged status, which nobody else
// holds.
func statusPod(pod *corev1.Pod, reported *corev1.PodStatus) *corev1.Pod {
	upd := &corev1.Pod{TypeMeta: pod.TypeMeta, ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace,
		UID: pod.UID, ResourceVersion: pod.ResourceVersion}}
	if !mergePodStatusInto(&upd.Status, &pod.Status, reported) {
		return nil
	}
	return upd
}

// writeStatus writes upd (statusPod of pod, the stored pod it was merged
// from) as pod's status. A NewStatusWriter takes over upd: a status write
// keeps the stored metadata and spec whatever it is given; a retry's pod
// merges reported again. Other Writers are given pod's metadata and spec
// shared, which they only read, with upd's status.
func (m *Monitor) writeStatus(ctx context.Context, pod, upd *corev1.Pod, reported *corev1.PodStatus) error {
	nw, ok := m.cfg.Writer.(NewStatusWriter)
	if !ok {
		full := *pod // shares the cached pod's metadata and spec: the Writer only reads it
		full.Status = upd.Status
		_, err := m.cfg.Writer.UpdateStatus(ctx, &full)
		return err
	}
	_, err := nw.UpdateStatusNew(ctx, func() api.Object {
		if upd == nil {
			return statusPod(pod, reported) // not nil: pod's status and reported are as they were
		}
		taken := upd
		upd = nil // taken: another call merges afresh
		return taken
	})
	return err
}

// reportedPod reads the pod a report is about; nil (and the report
// forgotten) when the pod is gone, is another pod of the same name, or is
// not bound to the reporting node.
func (m *Monitor) reportedPod(ctx context.Context, key podKey, want *podState) (*corev1.Pod, error) {
	pod, err := getPod(ctx, m.cfg.Store, key.namespace, key.name)
	switch {
	case errors.Is(err, datastore.ErrNotFound):
		m.forgetPod(key, want.hash) // deleted: nothing to report on
		return nil, nil
	case err != nil:
		return nil, err
	case string(pod.UID) != want.uid:
		m.forgetPod(key, want.hash) // a report about an earlier pod of that name
		return nil, nil
	case pod.Spec.NodeName != want.node:
		m.forgetPod(key, want.hash)
		m.log.Warn("a node reported the status of a pod not bound to it; ignored",
			"node", want.node, "pod", key.namespace+"/"+key.name, "bound_to", pod.Spec.NodeName)
		return nil, nil
	}
	return pod, nil
}

// mergePodStatusInto makes in out, a zero status, the stored status with
// the node's report applied: the node owns phase, container statuses, IPs
// and the conditions it reports; conditions it does not report
// (PodScheduled, set by the scheduler), the QoS class and the nominated
// node stay as stored. A pod that finished never runs again: a report that
// would take it out of Succeeded or Failed gives false.
func mergePodStatusInto(out, stored, reported *corev1.PodStatus) bool {
	if terminal(stored.Phase) && !terminal(reported.Phase) {
		return false
	}
	kept := 0 // stored conditions the node does not report
	for _, c := range stored.Conditions {
		if !hasPodCondition(reported.Conditions, c.Type) {
			kept++
		}
	}
	bare := *reported
	bare.Conditions = nil
	bare.DeepCopyInto(out)
	if reported.Conditions != nil || kept > 0 {
		// made once at its final size: reported's, then the kept ones
		out.Conditions = make([]corev1.PodCondition, len(reported.Conditions), len(reported.Conditions)+kept)
		for i := range reported.Conditions {
			reported.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
		for _, c := range stored.Conditions {
			if !hasPodCondition(reported.Conditions, c.Type) {
				out.Conditions = append(out.Conditions, c)
			}
		}
	}
	if out.QOSClass == "" {
		out.QOSClass = stored.QOSClass
	}
	out.NominatedNodeName = stored.NominatedNodeName
	return true
}

func terminal(p corev1.PodPhase) bool { return p == corev1.PodSucceeded || p == corev1.PodFailed }

func hasPodCondition(conds []corev1.PodCondition, t corev1.PodConditionType) bool {
	for _, c := range conds {
		if c.Type == t {
			return true
		}
	}
	return false
}

// podWritten drops the pending status unless a newer report replaced it.
func (m *Monitor) podWritten(key podKey, hash uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ps := m.pods[key]; ps != nil && ps.hash == hash {
		ps.status = nil
	}
}

func (m *Monitor) forgetPod(key podKey, hash uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ps := m.pods[key]; ps != nil && ps.hash == hash {
		delete(m.pods, key)
	}
}

// sweepPodsLocked forgets written pod statuses nobody reported for a while.
func (m *Monitor) sweepPodsLocked(now time.Time) {
	for k, ps := range m.pods {
		if ps.status == nil && now.Sub(ps.seen) > podMemory {
			delete(m.pods, k)
		}
	}
}
