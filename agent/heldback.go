package agent

import (
	"errors"
	"syscall"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// ReasonNodeDiskFull is the status reason of a pod the node holds back
// because it cannot store it: the agent keeps every pod on disk before it
// runs it, so that it can restart it without the server. `kubectl get
// pods` shows the reason in the STATUS column; the server records a
// Warning Event with it (server/nodestatus).
const ReasonNodeDiskFull = "NodeDiskFull"

// HeldBackFunc is told of each pod the node received but cannot run yet
// because its disk is full.
type HeldBackFunc func(pod *corev1.Pod, err error)

// SetHeldBack sets who is told of pods held back for lack of space.
func (a *Applier) SetHeldBack(f HeldBackFunc) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.heldBack = f
}

// noteHeldBack tells heldBack of the pods in changes the store could not
// take for lack of space and that the pod manager does not run yet (a
// running pod whose update is held back keeps running as it was and
// reports its own status). Callers hold a.mu.
func (a *Applier) noteHeldBack(changes []mqtt.Change, err error) {
	if a.heldBack == nil || !isNoSpace(err) {
		return
	}
	for _, c := range changes {
		if c.Resource != mqtt.ResourcePods || c.Type == mqtt.Deleted {
			continue
		}
		if _, held := a.store.Get(c.ObjectRef); held {
			continue
		}
		if pod, derr := decodePod(c.Object); derr == nil {
			a.heldBack(pod, err)
		}
	}
}

func isNoSpace(err error) bool { return errors.Is(err, syscall.ENOSPC) }

// heldBackStatus is what the node reports for a held-back pod: Pending,
// with the reason and what to do.
func heldBackStatus(err error) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodPending, Reason: ReasonNodeDiskFull,
		Message: "the node cannot store this pod, its disk is full (" + err.Error() +
			"); it starts once space is freed on the node"}
}
