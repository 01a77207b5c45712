package api

import (
	corev1 "k8s.io/api/core/v1"
)

func (e *encoder) container(c *corev1.Container) {
	e.str("name", c.Name)
	e.strOmit("image", c.Image)
	e.strings("command", c.Command)
	e.strings("args", c.Args)
	e.strOmit("workingDir", c.WorkingDir)
	objectList(e, "ports", c.Ports, (*encoder).containerPort)
	fallbackSlice(e, "envFrom", c.EnvFrom)
	objectList(e, "env", c.Env, (*encoder).envVar)
	object(e, "resources", &c.Resources, (*encoder).resourceRequirements)
	fallbackSlice(e, "resizePolicy", c.ResizePolicy)
	e.strPtr("restartPolicy", (*string)(c.RestartPolicy))
	objectList(e, "volumeMounts", c.VolumeMounts, (*encoder).volumeMount)
	fallbackSlice(e, "volumeDevices", c.VolumeDevices)
	objectPtr(e, "livenessProbe", c.LivenessProbe, (*encoder).probe)
	objectPtr(e, "readinessProbe", c.ReadinessProbe, (*encoder).probe)
	objectPtr(e, "startupProbe", c.StartupProbe, (*encoder).probe)
	fallbackPtr(e, "lifecycle", c.Lifecycle)
	e.strOmit("terminationMessagePath", c.TerminationMessagePath)
	e.strOmit("terminationMessagePolicy", string(c.TerminationMessagePolicy))
	e.strOmit("imagePullPolicy", string(c.ImagePullPolicy))
	fallbackPtr(e, "securityContext", c.SecurityContext)
	e.boolOmit("stdin", c.Stdin)
	e.boolOmit("stdinOnce", c.StdinOnce)
	e.boolOmit("tty", c.TTY)
}

func (e *encoder) containerPort(p *corev1.ContainerPort) {
	e.strOmit("name", p.Name)
	e.intOmit("hostPort", int64(p.HostPort))
	e.int("containerPort", int64(p.ContainerPort))
	e.strOmit("protocol", string(p.Protocol))
	e.strOmit("hostIP", p.HostIP)
}

func (e *encoder) envVar(v *corev1.EnvVar) {
	e.str("name", v.Name)
	e.strOmit("value", v.Value)
	objectPtr(e, "valueFrom", v.ValueFrom, (*encoder).envVarSource)
}

func (e *encoder) resourceRequirements(r *corev1.ResourceRequirements) {
	e.resourceList("limits", r.Limits)
	e.resourceList("requests", r.Requests)
	fallbackSlice(e, "claims", r.Claims)
}

func (e *encoder) volumeMount(m *corev1.VolumeMount) {
	e.str("name", m.Name)
	e.boolOmit("readOnly", m.ReadOnly)
	e.strPtr("recursiveReadOnly", (*string)(m.RecursiveReadOnly))
	e.str("mountPath", m.MountPath)
	e.strOmit("subPath", m.SubPath)
	e.strPtr("mountPropagation", (*string)(m.MountPropagation))
	e.strOmit("subPathExpr", m.SubPathExpr)
}
