package runtime

import (
	"context"
	"slices"
	"strings"

	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/oci"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// capabilityOpts: privileged gets every capability the agent holds, the
// host's devices and a writable /sys and cgroupfs; otherwise "ALL" in add
// or drop starts from everything or nothing, then the named ones are added
// and dropped from containerd's default set, as containerd's CRI does.
func capabilityOpts(sec Security) []oci.SpecOpts {
	if sec.Privileged {
		return []oci.SpecOpts{oci.WithPrivileged, oci.WithHostDevices, oci.WithAllDevicesAllowed}
	}
	var opts []oci.SpecOpts
	if hasAll(sec.CapAdd) {
		opts = append(opts, oci.WithAllCurrentCapabilities)
	}
	if hasAll(sec.CapDrop) {
		opts = append(opts, oci.WithCapabilities(nil))
	}
	return append(opts, oci.WithAddedCapabilities(capNames(sec.CapAdd)), oci.WithDroppedCapabilities(capNames(sec.CapDrop)))
}

func hasAll(caps []string) bool {
	return slices.ContainsFunc(caps, func(c string) bool { return strings.EqualFold(c, "ALL") })
}

// capNames turns Kubernetes' names (NET_ADMIN) into the kernel's
// (CAP_NET_ADMIN), leaving out ALL.
func capNames(caps []string) []string {
	var out []string
	for _, c := range caps {
		c = strings.ToUpper(c)
		if c == "ALL" {
			continue
		}
		if !strings.HasPrefix(c, "CAP_") {
			c = "CAP_" + c
		}
		out = append(out, c)
	}
	return out
}

// namespaceOpts: host PID and IPC namespaces (the host's /dev/shm with
// the latter, as the CRI gives it), or a pod's shared PID namespace.
func namespaceOpts(sec Security) []oci.SpecOpts {
	var opts []oci.SpecOpts
	switch {
	case sec.HostPID:
		opts = append(opts, oci.WithHostNamespace(specs.PIDNamespace))
	case sec.PIDNamespace != "":
		opts = append(opts, oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.PIDNamespace, Path: sec.PIDNamespace}))
	}
	if sec.HostIPC {
		opts = append(opts, oci.WithHostNamespace(specs.IPCNamespace), oci.WithMounts([]specs.Mount{{
			Destination: "/dev/shm", Type: "bind", Source: "/dev/shm", Options: []string{"rbind", "rprivate", "rw"},
		}}))
	}
	return opts
}

// withSysctls sets namespaced sysctls. It runs last: a net.* sysctl in the
// host's network namespace, or an IPC one in the host's IPC namespace,
// would change the host, so it is refused with the kubelet's words.
func withSysctls(sysctls map[string]string) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
		for k := range sysctls {
			if err := sysctlNamespaceOK(s.Linux.Namespaces, k); err != nil {
				return err
			}
		}
		if len(sysctls) == 0 {
			return nil
		}
		if s.Linux.Sysctl == nil {
			s.Linux.Sysctl = map[string]string{}
		}
		for k, v := range sysctls {
			s.Linux.Sysctl[k] = v
		}
		return nil
	}
}

func sysctlNamespaceOK(nss []specs.LinuxNamespace, key string) error {
	own := func(t specs.LinuxNamespaceType) bool {
		return slices.ContainsFunc(nss, func(n specs.LinuxNamespace) bool { return n.Type == t })
	}
	switch {
	case strings.HasPrefix(key, "net.") && !own(specs.NetworkNamespace):
		return configErrorf("sysctl %q not allowed with host net enabled", key)
	case (strings.HasPrefix(key, "kernel.shm") || strings.HasPrefix(key, "kernel.msg") ||
		strings.HasPrefix(key, "kernel.sem") || strings.HasPrefix(key, "fs.mqueue.")) && !own(specs.IPCNamespace):
		return configErrorf("sysctl %q not allowed with host ipc enabled", key)
	}
	return nil
}
