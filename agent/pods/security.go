package pods

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// safeSysctls are the kubelet's safe set (Kubernetes 1.32): namespaced,
// and unable to harm other pods. Others are refused; the kubelet's
// --allowed-unsafe-sysctls has no equivalent yet.
var safeSysctls = []string{
	"kernel.shm_rmid_forced",
	"net.ipv4.ip_local_port_range",
	"net.ipv4.tcp_syncookies",
	"net.ipv4.ping_group_range",
	"net.ipv4.ip_unprivileged_port_start",
	"net.ipv4.ip_local_reserved_ports",
	"net.ipv4.tcp_keepalive_time",
	"net.ipv4.tcp_fin_timeout",
	"net.ipv4.tcp_keepalive_intvl",
	"net.ipv4.tcp_keepalive_probes",
	"net.ipv4.tcp_rmem",
	"net.ipv4.tcp_wmem",
}

// securityFor merges the pod's and the container's security contexts as
// the kubelet does: the container's runAsUser, runAsGroup, runAsNonRoot
// and seccompProfile win over the pod's; fsGroup joins the supplemental
// groups; the rest is the container's or the pod's alone.
func securityFor(pod *corev1.Pod, c *corev1.Container, seccompRoot string) (runtime.Security, error) {
	psc, csc := contexts(pod, c)
	sec := runtime.Security{
		RunAsUser:      pick(csc.RunAsUser, psc.RunAsUser),
		RunAsGroup:     pick(csc.RunAsGroup, psc.RunAsGroup),
		RunAsNonRoot:   isTrue(pick(csc.RunAsNonRoot, psc.RunAsNonRoot)),
		Privileged:     isTrue(csc.Privileged),
		ReadOnlyRootfs: isTrue(csc.ReadOnlyRootFilesystem),
		// Escalation is allowed unless the container says otherwise.
		NoNewPrivileges: csc.AllowPrivilegeEscalation != nil && !*csc.AllowPrivilegeEscalation,
		UnmaskedProc:    csc.ProcMount != nil && *csc.ProcMount == corev1.UnmaskedProcMount,
		HostPID:         pod.Spec.HostPID,
		HostIPC:         pod.Spec.HostIPC,
		PodRef:          fmt.Sprintf("%s_%s(%s)", pod.Name, pod.Namespace, pod.UID),
	}
	if psc.FSGroup != nil {
		sec.SupplementalGroups = append(sec.SupplementalGroups, *psc.FSGroup)
	}
	sec.SupplementalGroups = append(sec.SupplementalGroups, psc.SupplementalGroups...)
	if csc.Capabilities != nil {
		sec.CapAdd = capStrings(csc.Capabilities.Add)
		sec.CapDrop = capStrings(csc.Capabilities.Drop)
	}
	if err := setSeccomp(&sec, pick(csc.SeccompProfile, psc.SeccompProfile), seccompRoot); err != nil {
		return runtime.Security{}, err
	}
	sysctls, err := podSysctls(psc.Sysctls)
	sec.Sysctls = sysctls
	return sec, err
}

// contexts returns the pod's and the container's security contexts, empty
// ones for those unset.
func contexts(pod *corev1.Pod, c *corev1.Container) (*corev1.PodSecurityContext, *corev1.SecurityContext) {
	psc, csc := pod.Spec.SecurityContext, c.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	if csc == nil {
		csc = &corev1.SecurityContext{}
	}
	return psc, csc
}

// setSeccomp resolves a profile; a Localhost one is a file under root.
func setSeccomp(sec *runtime.Security, p *corev1.SeccompProfile, root string) error {
	if p == nil {
		return nil
	}
	switch p.Type {
	case corev1.SeccompProfileTypeUnconfined, corev1.SeccompProfileTypeRuntimeDefault:
		sec.Seccomp = string(p.Type)
		return nil
	case corev1.SeccompProfileTypeLocalhost:
		name := ""
		if p.LocalhostProfile != nil {
			name = *p.LocalhostProfile
		}
		if name == "" || filepath.IsAbs(name) || slices.Contains(strings.Split(filepath.ToSlash(name), "/"), "..") {
			return fmt.Errorf("securityContext.seccompProfile.localhostProfile %q: want a relative path without '..' under %s", name, root)
		}
		sec.Seccomp, sec.SeccompPath = runtime.SeccompLocalhost, filepath.Join(root, name)
		return nil
	}
	return fmt.Errorf("securityContext.seccompProfile.type %q: want RuntimeDefault, Unconfined or Localhost", p.Type)
}

// podSysctls keeps the safe sysctls and refuses the others.
func podSysctls(in []corev1.Sysctl) (map[string]string, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(in))
	for _, s := range in {
		name := strings.ReplaceAll(s.Name, "/", ".")
		if !slices.Contains(safeSysctls, name) {
			return nil, fmt.Errorf("securityContext.sysctls: forbidden sysctl: %q not allowlisted (the kubelet's safe set: %s)", s.Name, strings.Join(safeSysctls, ", "))
		}
		out[name] = s.Value
	}
	return out, nil
}

func capStrings(cs []corev1.Capability) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}

func pick[T any](container, pod *T) *T {
	if container != nil {
		return container
	}
	return pod
}

// security resolves c's security context; in a pod sharing its process
// namespace, c joins the PID namespace of the first running app container
// (the kubelet's pause container holds it upstream; here the namespace
// ends when that container's main process does). An ephemeral container
// with a target joins the target's (ephemeral.go).
func (w *worker) security(pod *corev1.Pod, c *corev1.Container) (runtime.Security, error) {
	sec, err := securityFor(pod, c, w.m.cfg.SeccompRoot)
	if err != nil || pod.Spec.HostPID {
		return sec, err
	}
	if target := ephemeralTarget(pod, c.Name); target != "" {
		return w.joinTarget(sec, target)
	}
	if !isTrue(pod.Spec.ShareProcessNamespace) {
		return sec, nil
	}
	for i := range pod.Spec.Containers {
		st := w.ctrs[pod.Spec.Containers[i].Name]
		if st == nil || st.name == c.Name || st.rs == nil || st.rs.State != runtime.StateRunning || st.rs.Pid == 0 {
			continue
		}
		sec.PIDNamespace = fmt.Sprintf("/proc/%d/ns/pid", st.rs.Pid)
		break
	}
	return sec, nil
}
func isTrue(b *bool) bool { return b != nil && *b }
