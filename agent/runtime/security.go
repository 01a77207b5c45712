package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/contrib/seccomp"
	"github.com/containerd/containerd/oci"
)

// ConfigError is a spec that cannot run as asked (a root image under
// runAsNonRoot, a sysctl the namespaces forbid): the kubelet's
// CreateContainerConfigError rather than a runtime failure. Msg is the
// kubelet's message; find it with errors.As.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

func configErrorf(format string, args ...any) error {
	return &ConfigError{Msg: fmt.Sprintf(format, args...)}
}

// Seccomp profile kinds, as Kubernetes names them. The empty kind is
// Unconfined, the kubelet's default.
const (
	SeccompUnconfined     = "Unconfined"
	SeccompRuntimeDefault = "RuntimeDefault"
	SeccompLocalhost      = "Localhost"
)

// Security is a container's security context as the pod worker resolved
// it: pod and container levels merged, fsGroup among SupplementalGroups,
// profile paths absolute. The zero value is the kubelet's default: the
// image's user, containerd's default capabilities, no seccomp, privilege
// escalation allowed.
type Security struct {
	RunAsUser, RunAsGroup *int64
	RunAsNonRoot          bool
	SupplementalGroups    []int64
	Privileged            bool
	// CapAdd and CapDrop take Kubernetes names ("NET_ADMIN", "ALL").
	CapAdd, CapDrop []string
	NoNewPrivileges bool
	ReadOnlyRootfs  bool
	// Seccomp is one of the Seccomp kinds; SeccompPath is the profile
	// file of a Localhost one.
	Seccomp, SeccompPath string
	// UnmaskedProc leaves /proc unmasked (procMount Unmasked).
	UnmaskedProc bool
	Sysctls      map[string]string
	HostPID      bool
	HostIPC      bool
	// PIDNamespace is the path of a PID namespace to join (a pod sharing
	// its process namespace), e.g. /proc/<pid>/ns/pid.
	PIDNamespace string
	// PodRef names the pod in messages, as the kubelet does: name_ns(uid).
	PodRef string
}

// checkSecurity names a bad field of s.Security, then applies
// runAsNonRoot to the image's user.
func checkSecurity(s ContainerSpec, imageUser string) error {
	sec := s.Security
	switch {
	case sec.Seccomp != "" && sec.Seccomp != SeccompUnconfined && sec.Seccomp != SeccompRuntimeDefault && sec.Seccomp != SeccompLocalhost:
		return fmt.Errorf("container spec %s: security.seccomp %q: want %s, %s or %s", s.ID, sec.Seccomp, SeccompUnconfined, SeccompRuntimeDefault, SeccompLocalhost)
	case sec.Seccomp == SeccompLocalhost && !filepath.IsAbs(sec.SeccompPath):
		return fmt.Errorf("container spec %s: security.seccompPath %q is not absolute", s.ID, sec.SeccompPath)
	case sec.PIDNamespace != "" && (sec.HostPID || !filepath.IsAbs(sec.PIDNamespace)):
		return fmt.Errorf("container spec %s: security.pidNamespace %q: want an absolute path, and not with hostPID", s.ID, sec.PIDNamespace)
	}
	return checkNonRoot(sec, imageUser, s.Name)
}

// checkNonRoot refuses what runAsNonRoot forbids, with the kubelet's
// messages; imageUser is the image config's user ("uid[:gid]" or a name).
func checkNonRoot(sec Security, imageUser, container string) error {
	if !sec.RunAsNonRoot {
		return nil
	}
	if sec.RunAsUser != nil {
		if *sec.RunAsUser == 0 {
			return configErrorf("container's runAsUser breaks non-root policy (pod: %q, container: %s)", sec.PodRef, container)
		}
		return nil
	}
	user, _, _ := strings.Cut(imageUser, ":")
	uid, err := strconv.ParseInt(user, 10, 64)
	switch {
	case user == "" || (err == nil && uid == 0):
		return configErrorf("container has runAsNonRoot and image will run as root (pod: %q, container: %s)", sec.PodRef, container)
	case err != nil:
		return configErrorf("container has runAsNonRoot and image has non-numeric user (%s), cannot verify user is non-root (pod: %q, container: %s)", user, sec.PodRef, container)
	}
	return nil
}

// securityOpts applies sec on top of containerd's default spec and the
// image's user; they must come after every other option.
func securityOpts(sec Security, imageUser string) []oci.SpecOpts {
	opts := userOpts(sec, imageUser)
	opts = append(opts, capabilityOpts(sec)...)
	opts = append(opts, withNoNewPrivileges(sec.NoNewPrivileges))
	if sec.ReadOnlyRootfs {
		opts = append(opts, oci.WithRootFSReadonly())
	}
	if sec.UnmaskedProc && !sec.Privileged {
		opts = append(opts, oci.WithMaskedPaths(nil), oci.WithReadonlyPaths(nil))
	}
	opts = append(opts, namespaceOpts(sec)...)
	opts = append(opts, seccompOpt(sec), withSysctls(sec.Sysctls))
	return opts
}

// userOpts sets the process's user as containerd's CRI does: runAsUser
// (else the image's user) with runAsGroup, the groups /etc/group gives
// that user, then the supplemental groups.
func userOpts(sec Security, imageUser string) []oci.SpecOpts {
	var opts []oci.SpecOpts
	if sec.RunAsUser != nil || sec.RunAsGroup != nil {
		user, _, _ := strings.Cut(imageUser, ":")
		if sec.RunAsUser != nil {
			user = strconv.FormatInt(*sec.RunAsUser, 10)
		}
		if user == "" {
			user = "0"
		}
		userstr := user
		if sec.RunAsGroup != nil {
			userstr += ":" + strconv.FormatInt(*sec.RunAsGroup, 10)
		}
		opts = append(opts, oci.WithUser(userstr), oci.WithAdditionalGIDs(user))
	}
	if len(sec.SupplementalGroups) > 0 {
		opts = append(opts, withGroups(sec.SupplementalGroups))
	}
	return opts
}

// withGroups adds gids to the process's additional groups once each.
func withGroups(gids []int64) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
		have := map[uint32]bool{}
		for _, g := range s.Process.User.AdditionalGids {
			have[g] = true
		}
		for _, g := range gids {
			if !have[uint32(g)] {
				have[uint32(g)] = true
				s.Process.User.AdditionalGids = append(s.Process.User.AdditionalGids, uint32(g))
			}
		}
		return nil
	}
}

func withNoNewPrivileges(on bool) oci.SpecOpts {
	return func(_ context.Context, _ oci.Client, _ *containers.Container, s *oci.Spec) error {
		s.Process.NoNewPrivileges = on
		return nil
	}
}

// seccompOpt: a privileged container is never confined, as upstream.
func seccompOpt(sec Security) oci.SpecOpts {
	switch {
	case sec.Privileged || sec.Seccomp == "" || sec.Seccomp == SeccompUnconfined:
		return oci.WithSeccompUnconfined
	case sec.Seccomp == SeccompRuntimeDefault:
		return seccomp.WithDefaultProfile()
	}
	return seccomp.WithProfile(sec.SeccompPath)
}
