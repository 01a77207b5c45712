package nodestatus

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
)

// agentComponent is the source of the Events written for what nodes report.
const agentComponent = "bramble-agent"

// reasonEvent records a Warning Event when a node's report gives a pending
// pod a reason it did not have (a pod the node holds back, such as
// NodeDiskFull when it cannot store it): the reason shows in `kubectl get
// pods`, the Event in `kubectl describe pod` and `kubectl get events`. A
// failure to write it is logged; the status was written.
func (m *Monitor) reasonEvent(ctx context.Context, pod *corev1.Pod, next *corev1.PodStatus) {
	if next.Phase != corev1.PodPending || next.Reason == "" || next.Reason == pod.Status.Reason {
		return
	}
	ev, err := api.NewEvent(pod, agentComponent, corev1.EventTypeWarning, next.Reason, next.Message, m.cfg.Now())
	if err == nil {
		ev.Source.Host = pod.Spec.NodeName
		_, err = m.cfg.Writer.Create(ctx, ev)
	}
	if err != nil {
		m.log.Warn("pod event not written", "pod", pod.Namespace+"/"+pod.Name, "reason", next.Reason, "err", err)
	}
}
