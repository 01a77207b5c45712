package runtime

import (
	"context"
	"fmt"
	"os"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/oci"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// defaultCPUPeriod is the CFS period when the spec gives a quota only.
const defaultCPUPeriod = 100000

// memswPath exists on cgroup v1 hosts with swap accounting; there the swap
// limit is set to the memory limit so a container cannot swap past it.
var memswPath = "/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes"

// specOpts builds the OCI spec on top of containerd's defaults and the
// image's config. The cgroup is /<namespace>/<id> (containerd's default).
// The process's oom_score_adj is never set: lowering it needs
// CAP_SYS_RESOURCE, which a host may not grant, and it is inherited anyway.
func (c *Containerd) specOpts(ctx context.Context, img containerd.Image, s ContainerSpec) ([]oci.SpecOpts, error) {
	ic, err := img.Spec(ctx)
	if err != nil {
		return nil, fmt.Errorf("read image config of %s: %w", img.Name(), err)
	}
	args := processArgs(ic.Config, s)
	if len(args) == 0 {
		return nil, fmt.Errorf("no command: the image has no entrypoint or cmd and the spec sets none")
	}
	if err := checkSecurity(s, ic.Config.User); err != nil {
		return nil, err
	}
	opts := []oci.SpecOpts{oci.WithImageConfig(img), oci.WithProcessArgs(args...)}
	opts = append(opts, networkOpts(s.Sandbox)...)
	opts = append(opts, withoutOOMScoreAdj)
	if len(s.Env) > 0 {
		env := make([]string, len(s.Env))
		for i, e := range s.Env {
			env[i] = e.Name + "=" + e.Value
		}
		opts = append(opts, oci.WithEnv(env))
	}
	if s.WorkingDir != "" {
		opts = append(opts, oci.WithProcessCwd(s.WorkingDir))
	}
	if len(s.Mounts) > 0 {
		opts = append(opts, oci.WithMounts(bindMounts(s.Mounts)))
	}
	opts = append(opts, resourceOpts(s)...)
	if s.TTY {
		opts = append(opts, oci.WithTTY)
	}
	if s.PodCgroup && s.PodUID != "" {
		opts = append(opts, c.withPodCgroup(s))
	}
	return append(opts, securityOpts(s.Security, ic.Config.User)...), nil
}

// networkOpts puts the container in its pod's namespaces, with the pod's
// hosts, hostname and (when the node runs the cluster DNS) resolv.conf
// files, or on the host's network without a sandbox (with the pod's
// resolv.conf when a host-network Sandbox gives one).
func networkOpts(sb *Sandbox) []oci.SpecOpts {
	if sb == nil || sb.HostNetwork {
		return []oci.SpecOpts{oci.WithHostNamespace(specs.NetworkNamespace), oci.WithHostNamespace(specs.UTSNamespace),
			oci.WithHostHostsFile, resolvOpt(sb)}
	}
	mounts := []specs.Mount{
		{Destination: "/etc/hosts", Type: "bind", Source: sb.HostsFile, Options: []string{"rbind", "rprivate", "rw"}},
		{Destination: "/etc/hostname", Type: "bind", Source: sb.HostnameFile, Options: []string{"rbind", "rprivate", "rw"}},
	}
	return []oci.SpecOpts{
		oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.NetworkNamespace, Path: sb.NetNS}),
		oci.WithLinuxNamespace(specs.LinuxNamespace{Type: specs.UTSNamespace, Path: sb.UTSNS}),
		oci.WithHostname(sb.Hostname),
		oci.WithMounts(mounts),
		resolvOpt(sb),
	}
}

// resolvOpt mounts the sandbox's resolv.conf as /etc/resolv.conf, or the
// host's when there is none.
func resolvOpt(sb *Sandbox) oci.SpecOpts {
	if sb == nil || sb.ResolvFile == "" {
		return oci.WithHostResolvconf
	}
	return oci.WithMounts([]specs.Mount{{Destination: "/etc/resolv.conf", Type: "bind", Source: sb.ResolvFile,
		Options: []string{"rbind", "rprivate", "rw"}}})
}

// processArgs applies Kubernetes' rules: Command replaces the entrypoint
// (and drops the image's cmd), Args replaces the cmd.
func processArgs(ic ocispec.ImageConfig, s ContainerSpec) []string {
	entry, cmd := ic.Entrypoint, ic.Cmd
	if len(s.Command) > 0 {
		entry, cmd = s.Command, nil
	}
	if len(s.Args) > 0 {
		cmd = s.Args
	}
	return append(append([]string{}, entry...), cmd...)
}

func bindMounts(ms []Mount) []specs.Mount {
	out := make([]specs.Mount, len(ms))
	for i, m := range ms {
		mode := "rw"
		if m.ReadOnly {
			mode = "ro"
		}
		out[i] = specs.Mount{
			Destination: m.ContainerPath,
			Type:        "bind",
			Source:      m.HostPath,
			Options:     []string{"rbind", "rprivate", mode},
		}
	}
	return out
}

func resourceOpts(s ContainerSpec) []oci.SpecOpts {
	var opts []oci.SpecOpts
	if s.MemoryLimit > 0 {
		opts = append(opts, oci.WithMemoryLimit(uint64(s.MemoryLimit)))
		if _, err := os.Stat(memswPath); err == nil {
			opts = append(opts, oci.WithMemorySwap(s.MemoryLimit))
		}
	}
	if s.CPUQuota > 0 {
		period := s.CPUPeriod
		if period == 0 {
			period = defaultCPUPeriod
		}
		opts = append(opts, oci.WithCPUCFS(s.CPUQuota, period))
	}
	if s.CPUShares > 0 {
		opts = append(opts, oci.WithCPUShares(s.CPUShares))
	}
	return opts
}

// withoutOOMScoreAdj makes sure no default ever sets oom_score_adj.
func withoutOOMScoreAdj(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
	if s.Process != nil {
		s.Process.OOMScoreAdj = nil
	}
	return nil
}
