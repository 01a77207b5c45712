package hollownode

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// podRunner is the node's Applier: it keeps the desired view in a
// client.Memory and pretends to run the pods bound to the node. Apply and
// Resync run on the client's stream goroutine and only note what changed;
// the node's goroutine sends the reports.
type podRunner struct {
	*client.Memory
	node    *Node
	hostIP  string
	changed chan struct{} // capacity 1: "a report may be due"

	mu   sync.Mutex
	pods map[mqtt.ObjectRef]*fakePod
}

// fakePod is one pod the node pretends to run.
type fakePod struct {
	pod      *corev1.Pod
	started  metav1.Time
	finished metav1.Time
	podIP    string
	phase    corev1.PodPhase // what the pod is now
	reported corev1.PodPhase // what the server was last told
	// stopped: the API is deleting the pod and the node "stopped" it; its
	// reports ask the server to finish the deletion, as an agent's do.
	stopped bool
}

var _ client.Applier = (*podRunner)(nil)

func newPodRunner(n *Node) *podRunner {
	h := sha256.Sum256([]byte(n.name))
	return &podRunner{Memory: client.NewMemory(), node: n, changed: make(chan struct{}, 1),
		hostIP: fmt.Sprintf("10.%d.%d.%d", 64+h[0]%64, h[1], 1+h[2]%254), pods: map[mqtt.ObjectRef]*fakePod{}}
}

// Apply applies ev to the view and notes pods added to or removed from the
// node.
func (r *podRunner) Apply(ctx context.Context, ev mqtt.Event) error {
	if err := r.Memory.Apply(ctx, ev); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range ev.Changes {
		if c.Resource != mqtt.ResourcePods {
			continue
		}
		if c.Type == mqtt.Deleted {
			delete(r.pods, c.ObjectRef)
			continue
		}
		r.observeLocked(c.ObjectRef, c.Object)
	}
	return nil
}

// Resync replaces the view and the pods with st.
func (r *podRunner) Resync(ctx context.Context, st client.State) error {
	if err := r.Memory.Resync(ctx, st); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	keep := map[mqtt.ObjectRef]bool{}
	for _, o := range st.Objects {
		if o.Resource == mqtt.ResourcePods {
			keep[o.ObjectRef] = true
			r.observeLocked(o.ObjectRef, o.Object)
		}
	}
	for ref := range r.pods {
		if !keep[ref] {
			delete(r.pods, ref)
		}
	}
	return nil
}

// observeLocked starts pretending to run a pod new to the node. A pod the
// server already shows running keeps its start time and IP, so a
// restarted fleet repeats what is stored and causes no write.
func (r *podRunner) observeLocked(ref mqtt.ObjectRef, raw json.RawMessage) {
	var pod corev1.Pod
	if err := json.Unmarshal(raw, &pod); err != nil || pod.Spec.NodeName != r.node.name {
		delete(r.pods, ref)
		return
	}
	if old := r.pods[ref]; old != nil && old.pod.UID == pod.UID {
		if pod.DeletionTimestamp != nil && !old.stopped {
			old.stop()
			r.signal()
		}
		return
	}
	fp := &fakePod{pod: &pod, phase: corev1.PodRunning, podIP: podIP(pod.UID),
		started: metav1.NewTime(time.Now().UTC().Truncate(time.Second))}
	if s := pod.Status; s.StartTime != nil && s.PodIP != "" {
		fp.started, fp.podIP = *s.StartTime, s.PodIP
	}
	if s := pod.Status.Phase; s == corev1.PodSucceeded || s == corev1.PodFailed {
		fp.phase, fp.reported = s, s // finished before: nothing to do
	}
	r.pods[ref] = fp
	if pod.DeletionTimestamp != nil {
		fp.stop()
	}
	if fp.phase == corev1.PodRunning && pod.Spec.RestartPolicy != corev1.RestartPolicyAlways && pod.Spec.RestartPolicy != "" {
		time.AfterFunc(r.node.cfg.SucceedAfter, func() { r.finish(ref, pod.UID) })
	}
	r.signal()
}

// stop ends a pod the API is deleting: its containers exit 0 at once (a
// hollow pod has no preStop hook or grace to wait for) and it is due for
// a report marked Finished.
func (fp *fakePod) stop() {
	fp.stopped, fp.reported = true, ""
	if fp.phase == corev1.PodRunning {
		fp.phase = corev1.PodSucceeded
		fp.finished = metav1.NewTime(time.Now().UTC().Truncate(time.Second))
	}
}

// finish makes a pod that does not restart exit 0.
func (r *podRunner) finish(ref mqtt.ObjectRef, uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if fp := r.pods[ref]; fp != nil && fp.pod.UID == uid && fp.phase == corev1.PodRunning {
		fp.phase = corev1.PodSucceeded
		fp.finished = metav1.NewTime(time.Now().UTC().Truncate(time.Second))
		r.signal()
	}
}

// resend marks every pod's status as not reported, as the agent sends its
// pods' last statuses again after a reconnect (the server may have taken a
// report and stopped before writing it).
func (r *podRunner) resend() {
	r.mu.Lock()
	for _, fp := range r.pods {
		fp.reported = ""
	}
	r.mu.Unlock()
	r.signal()
}

func (r *podRunner) signal() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func podIP(uid types.UID) string {
	h := sha256.Sum256([]byte(uid))
	return fmt.Sprintf("10.%d.%d.%d", h[0]%64, h[1], 1+h[2]%254)
}

// report sends the status of every pod whose phase the server was not
// told yet, in batches; what fails is tried again a second later.
func (r *podRunner) report(ctx context.Context) {
	r.mu.Lock()
	var due []mqtt.PodStatusEntry
	var phases []corev1.PodPhase
	var refs []mqtt.ObjectRef
	for ref, fp := range r.pods {
		if fp.phase != fp.reported {
			due = append(due, fp.entry(r.hostIP))
			phases, refs = append(phases, fp.phase), append(refs, ref)
		}
	}
	r.mu.Unlock()
	for start := 0; start < len(due); start += mqtt.MaxPodStatusBatch {
		end := min(start+mqtt.MaxPodStatusBatch, len(due))
		if err := r.send(ctx, due[start:end]); err != nil {
			r.node.log.Debug("pod status not sent; retrying", "err", err)
			time.AfterFunc(time.Second, r.signal)
			return
		}
		r.mu.Lock()
		for i := start; i < end; i++ {
			if fp := r.pods[refs[i]]; fp != nil && string(fp.pod.UID) == due[i].UID {
				fp.reported = phases[i]
			}
		}
		r.mu.Unlock()
	}
}

func (r *podRunner) send(ctx context.Context, pods []mqtt.PodStatusEntry) error {
	data, err := (&mqtt.PodStatusReport{Node: r.node.name, Pods: pods}).Encode()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return r.node.client.Publish(ctx, mqtt.PodStatusTopic(r.node.name), 1, data)
}
