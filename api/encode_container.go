package api

import (
	corev1 "k8s.io/api/core/v1"
)

// containers writes a container list; containers is not omitempty (nil
// is null), initContainers is.
func (e *encoder) containers(key string, cs []corev1.Container, omitEmpty bool) {
	if omitEmpty && len(cs) == 0 {
		return
	}
	e.field(key)
	if cs == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i := range cs {
		e.elem()
		e.container(&cs[i])
	}
	e.b = append(e.b, ']')
}

func (e *encoder) container(c *corev1.Container) {
	e.b = append(e.b, '{')
	e.str("name", c.Name)
	e.strOmit("image", c.Image)
	e.strings("command", c.Command)
	e.strings("args", c.Args)
	e.strOmit("workingDir", c.WorkingDir)
	e.containerPorts(c.Ports)
	fallbackSlice(e, "envFrom", c.EnvFrom)
	e.env(c.Env)
	e.field("resources")
	e.resourceRequirements(&c.Resources)
	fallbackSlice(e, "resizePolicy", c.ResizePolicy)
	e.strPtr("restartPolicy", (*string)(c.RestartPolicy))
	e.volumeMounts(c.VolumeMounts)
	fallbackSlice(e, "volumeDevices", c.VolumeDevices)
	e.probe("livenessProbe", c.LivenessProbe)
	e.probe("readinessProbe", c.ReadinessProbe)
	e.probe("startupProbe", c.StartupProbe)
	fallbackPtr(e, "lifecycle", c.Lifecycle)
	e.strOmit("terminationMessagePath", c.TerminationMessagePath)
	e.strOmit("terminationMessagePolicy", string(c.TerminationMessagePolicy))
	e.strOmit("imagePullPolicy", string(c.ImagePullPolicy))
	fallbackPtr(e, "securityContext", c.SecurityContext)
	e.boolOmit("stdin", c.Stdin)
	e.boolOmit("stdinOnce", c.StdinOnce)
	e.boolOmit("tty", c.TTY)
	e.b = append(e.b, '}')
}

func (e *encoder) containerPorts(ports []corev1.ContainerPort) {
	if len(ports) == 0 {
		return
	}
	e.field("ports")
	e.b = append(e.b, '[')
	for i := range ports {
		p := &ports[i]
		e.elem()
		e.b = append(e.b, '{')
		e.strOmit("name", p.Name)
		e.intOmit("hostPort", int64(p.HostPort))
		e.int("containerPort", int64(p.ContainerPort))
		e.strOmit("protocol", string(p.Protocol))
		e.strOmit("hostIP", p.HostIP)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}

func (e *encoder) env(vars []corev1.EnvVar) {
	if len(vars) == 0 {
		return
	}
	e.field("env")
	e.b = append(e.b, '[')
	for i := range vars {
		v := &vars[i]
		e.elem()
		e.b = append(e.b, '{')
		e.str("name", v.Name)
		e.strOmit("value", v.Value)
		e.envVarSource(v.ValueFrom)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}

// resourceRequirements writes r as the value of the field begun.
func (e *encoder) resourceRequirements(r *corev1.ResourceRequirements) {
	e.b = append(e.b, '{')
	e.resourceList("limits", r.Limits)
	e.resourceList("requests", r.Requests)
	fallbackSlice(e, "claims", r.Claims)
	e.b = append(e.b, '}')
}

func (e *encoder) volumeMounts(mounts []corev1.VolumeMount) {
	if len(mounts) == 0 {
		return
	}
	e.field("volumeMounts")
	e.b = append(e.b, '[')
	for i := range mounts {
		m := &mounts[i]
		e.elem()
		e.b = append(e.b, '{')
		e.str("name", m.Name)
		e.boolOmit("readOnly", m.ReadOnly)
		e.strPtr("recursiveReadOnly", (*string)(m.RecursiveReadOnly))
		e.str("mountPath", m.MountPath)
		e.strOmit("subPath", m.SubPath)
		e.strPtr("mountPropagation", (*string)(m.MountPropagation))
		e.strOmit("subPathExpr", m.SubPathExpr)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
}
