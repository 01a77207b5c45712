package hollownode

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// entry is the status the node reports for fp: Running and Ready with
// every container running, or Succeeded with every container exited 0.
func (fp *fakePod) entry(hostIP string) mqtt.PodStatusEntry {
	p := fp.pod
	done := fp.phase == corev1.PodSucceeded
	st := corev1.PodStatus{Phase: fp.phase, HostIP: hostIP, HostIPs: []corev1.HostIP{{IP: hostIP}},
		PodIP: fp.podIP, PodIPs: []corev1.PodIP{{IP: fp.podIP}}, StartTime: &fp.started,
		Conditions: fp.conditions(done)}
	for _, c := range p.Spec.InitContainers {
		st.InitContainerStatuses = append(st.InitContainerStatuses, fp.exited(c, fp.started))
	}
	for _, c := range p.Spec.Containers {
		if done {
			st.ContainerStatuses = append(st.ContainerStatuses, fp.exited(c, fp.finished))
			continue
		}
		started := true
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image,
			ImageID: "hollow://" + c.Image, ContainerID: fp.containerID(c.Name), Ready: true, Started: &started,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: fp.started}}})
	}
	return mqtt.PodStatusEntry{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Status: st, Finished: fp.stopped}
}

func (fp *fakePod) conditions(done bool) []corev1.PodCondition {
	ready, reason := corev1.ConditionTrue, ""
	if done {
		ready, reason = corev1.ConditionFalse, "PodCompleted"
	}
	at := fp.started
	if done {
		at = fp.finished
	}
	return []corev1.PodCondition{
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: fp.started},
		{Type: corev1.ContainersReady, Status: ready, Reason: reason, LastTransitionTime: at},
		{Type: corev1.PodReady, Status: ready, Reason: reason, LastTransitionTime: at},
	}
}

func (fp *fakePod) exited(c corev1.Container, at metav1.Time) corev1.ContainerStatus {
	started := false
	return corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: "hollow://" + c.Image,
		ContainerID: fp.containerID(c.Name), Started: &started,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
			StartedAt: fp.started, FinishedAt: at, ContainerID: fp.containerID(c.Name)}}}
}

func (fp *fakePod) containerID(name string) string {
	uid := string(fp.pod.UID)
	if len(uid) > 8 {
		uid = uid[:8]
	}
	return "hollow://" + uid + "-" + name
}
