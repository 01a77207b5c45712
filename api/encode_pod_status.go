package api

import (
	corev1 "k8s.io/api/core/v1"
)

func (e *encoder) podStatus(s *corev1.PodStatus) {
	e.field("status")
	e.b = append(e.b, '{')
	e.strOmit("phase", string(s.Phase))
	e.podConditions(s.Conditions)
	e.strOmit("message", s.Message)
	e.strOmit("reason", s.Reason)
	e.strOmit("nominatedNodeName", s.NominatedNodeName)
	e.strOmit("hostIP", s.HostIP)
	if len(s.HostIPs) > 0 {
		e.field("hostIPs")
		e.b = append(e.b, '[')
		for i := range s.HostIPs {
			e.ipObject(s.HostIPs[i].IP)
		}
		e.b = append(e.b, ']')
	}
	e.strOmit("podIP", s.PodIP)
	if len(s.PodIPs) > 0 {
		e.field("podIPs")
		e.b = append(e.b, '[')
		for i := range s.PodIPs {
			e.ipObject(s.PodIPs[i].IP)
		}
		e.b = append(e.b, ']')
	}
	e.timePtr("startTime", s.StartTime)
	e.containerStatuses("initContainerStatuses", s.InitContainerStatuses)
	e.containerStatuses("containerStatuses", s.ContainerStatuses)
	e.strOmit("qosClass", string(s.QOSClass))
	e.containerStatuses("ephemeralContainerStatuses", s.EphemeralContainerStatuses)
	e.strOmit("resize", string(s.Resize))
	fallbackSlice(e, "resourceClaimStatuses", s.ResourceClaimStatuses)
	e.b = append(e.b, '}')
}

// ipObject is an element {"ip":...} of hostIPs or podIPs.
func (e *encoder) ipObject(ip string) {
	e.elem()
	e.b = append(e.b, '{')
	e.str("ip", ip)
	e.b = append(e.b, '}')
}

func (e *encoder) podConditions(cs []corev1.PodCondition) {
	if len(cs) == 0 {
		return
	}
	e.field("conditions")
	e.b = append(e.b, '[')
	for i := range cs {
		c := &cs[i]
		e.elem()
		e.b = append(e.b, '{')
		e.str("type", string(c.Type))
		e.str("status", string(c.Status))
		e.time("lastProbeTime", c.LastProbeTime)
		e.time("lastTransitionTime", c.LastTransitionTime)
		e.strOmit("reason", c.Reason)
		e.strOmit("message", c.Message)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}

func (e *encoder) containerStatuses(key string, ss []corev1.ContainerStatus) {
	if len(ss) == 0 {
		return
	}
	e.field(key)
	e.b = append(e.b, '[')
	for i := range ss {
		e.elem()
		e.containerStatus(&ss[i])
	}
	e.b = append(e.b, ']')
}

func (e *encoder) containerStatus(s *corev1.ContainerStatus) {
	e.b = append(e.b, '{')
	e.str("name", s.Name)
	e.containerState("state", &s.State)
	e.containerState("lastState", &s.LastTerminationState)
	e.bool("ready", s.Ready)
	e.int("restartCount", int64(s.RestartCount))
	e.str("image", s.Image)
	e.str("imageID", s.ImageID)
	e.strOmit("containerID", s.ContainerID)
	e.boolPtr("started", s.Started)
	e.resourceList("allocatedResources", s.AllocatedResources)
	if s.Resources != nil {
		e.field("resources")
		e.resourceRequirements(s.Resources)
	}
	fallbackSlice(e, "volumeMounts", s.VolumeMounts)
	fallbackPtr(e, "user", s.User)
	fallbackSlice(e, "allocatedResourcesStatus", s.AllocatedResourcesStatus)
	e.b = append(e.b, '}')
}

func (e *encoder) containerState(key string, s *corev1.ContainerState) {
	e.field(key)
	e.b = append(e.b, '{')
	if w := s.Waiting; w != nil {
		e.field("waiting")
		e.b = append(e.b, '{')
		e.strOmit("reason", w.Reason)
		e.strOmit("message", w.Message)
		e.b = append(e.b, '}')
	}
	if r := s.Running; r != nil {
		e.field("running")
		e.b = append(e.b, '{')
		e.time("startedAt", r.StartedAt)
		e.b = append(e.b, '}')
	}
	if t := s.Terminated; t != nil {
		e.field("terminated")
		e.b = append(e.b, '{')
		e.int("exitCode", int64(t.ExitCode))
		e.intOmit("signal", int64(t.Signal))
		e.strOmit("reason", t.Reason)
		e.strOmit("message", t.Message)
		e.time("startedAt", t.StartedAt)
		e.time("finishedAt", t.FinishedAt)
		e.strOmit("containerID", t.ContainerID)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')
}
