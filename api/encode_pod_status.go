package api

import (
	corev1 "k8s.io/api/core/v1"
)

func (e *encoder) podStatus(s *corev1.PodStatus) {
	e.strOmit("phase", string(s.Phase))
	objectList(e, "conditions", s.Conditions, (*encoder).podCondition)
	e.strOmit("message", s.Message)
	e.strOmit("reason", s.Reason)
	e.strOmit("nominatedNodeName", s.NominatedNodeName)
	e.strOmit("hostIP", s.HostIP)
	objectList(e, "hostIPs", s.HostIPs, (*encoder).hostIP)
	e.strOmit("podIP", s.PodIP)
	objectList(e, "podIPs", s.PodIPs, (*encoder).podIP)
	e.timePtr("startTime", s.StartTime)
	objectList(e, "initContainerStatuses", s.InitContainerStatuses, (*encoder).containerStatus)
	objectList(e, "containerStatuses", s.ContainerStatuses, (*encoder).containerStatus)
	e.strOmit("qosClass", string(s.QOSClass))
	objectList(e, "ephemeralContainerStatuses", s.EphemeralContainerStatuses, (*encoder).containerStatus)
	e.strOmit("resize", string(s.Resize))
	fallbackSlice(e, "resourceClaimStatuses", s.ResourceClaimStatuses)
}

func (e *encoder) hostIP(ip *corev1.HostIP) { e.str("ip", ip.IP) }

func (e *encoder) podIP(ip *corev1.PodIP) { e.str("ip", ip.IP) }

func (e *encoder) podCondition(c *corev1.PodCondition) {
	e.str("type", string(c.Type))
	e.str("status", string(c.Status))
	e.time("lastProbeTime", c.LastProbeTime)
	e.time("lastTransitionTime", c.LastTransitionTime)
	e.strOmit("reason", c.Reason)
	e.strOmit("message", c.Message)
}

func (e *encoder) containerStatus(s *corev1.ContainerStatus) {
	e.str("name", s.Name)
	object(e, "state", &s.State, (*encoder).containerState)
	object(e, "lastState", &s.LastTerminationState, (*encoder).containerState)
	e.bool("ready", s.Ready)
	e.int("restartCount", int64(s.RestartCount))
	e.str("image", s.Image)
	e.str("imageID", s.ImageID)
	e.strOmit("containerID", s.ContainerID)
	e.boolPtr("started", s.Started)
	e.resourceList("allocatedResources", s.AllocatedResources)
	objectPtr(e, "resources", s.Resources, (*encoder).resourceRequirements)
	fallbackSlice(e, "volumeMounts", s.VolumeMounts)
	fallbackPtr(e, "user", s.User)
	fallbackSlice(e, "allocatedResourcesStatus", s.AllocatedResourcesStatus)
}

func (e *encoder) containerState(s *corev1.ContainerState) {
	objectPtr(e, "waiting", s.Waiting, (*encoder).waiting)
	objectPtr(e, "running", s.Running, (*encoder).running)
	objectPtr(e, "terminated", s.Terminated, (*encoder).terminated)
}

func (e *encoder) waiting(w *corev1.ContainerStateWaiting) {
	e.strOmit("reason", w.Reason)
	e.strOmit("message", w.Message)
}

func (e *encoder) running(r *corev1.ContainerStateRunning) {
	e.time("startedAt", r.StartedAt)
}

func (e *encoder) terminated(t *corev1.ContainerStateTerminated) {
	e.int("exitCode", int64(t.ExitCode))
	e.intOmit("signal", int64(t.Signal))
	e.strOmit("reason", t.Reason)
	e.strOmit("message", t.Message)
	e.time("startedAt", t.StartedAt)
	e.time("finishedAt", t.FinishedAt)
	e.strOmit("containerID", t.ContainerID)
}
