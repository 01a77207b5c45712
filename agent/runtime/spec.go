package runtime

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/internal/idrule"
)

// ContainerSpec is one container as the pod worker resolved it: volumes are
// already host paths, env values already looked up. A container joins its
// pod's network and UTS namespaces (Sandbox); without one it shares the
// host's, as hostNetwork pods do.
type ContainerSpec struct {
	// ID names the container in containerd; unique in the namespace.
	ID     string
	PodUID string
	// Name is the container's name in its pod.
	Name  string
	Image string
	// Command replaces the image's entrypoint; Args replaces its cmd, as
	// in Kubernetes (a Command without Args drops the image's cmd).
	Command    []string
	Args       []string
	Env        []EnvVar
	WorkingDir string
	Mounts     []Mount
	// CPUQuota is microseconds of CPU per CPUPeriod (default 100000); 0
	// means no limit. 1.5 CPUs is CPUQuota 150000.
	CPUQuota  int64
	CPUPeriod uint64
	// CPUShares is the relative CPU weight (Kubernetes: from requests).
	CPUShares uint64
	// MemoryLimit in bytes; 0 means no limit.
	MemoryLimit int64
	// PodCgroup puts the container's cgroup under its pod's
	// (EnsurePodCgroup) instead of directly under the namespace's.
	PodCgroup bool
	// LogPath is the absolute file stdout and stderr go to, as CRI lines;
	// empty discards the output.
	LogPath string
	// Stdin gives the container a stdin the agent holds, for kubectl
	// attach; StdinOnce closes it when the first attach with stdin ends.
	// TTY gives it a terminal. With either, the agent copies the output to
	// LogPath and to attached clients (console.go).
	Stdin, StdinOnce, TTY bool
	// Labels are kept on the container; keys under bramble.io/ are ours.
	Labels map[string]string
	// Security is the container's security context (security.go).
	Security Security
	// Sandbox is the pod's network; nil shares the host's network, UTS
	// namespace, /etc/hosts and /etc/resolv.conf.
	Sandbox *Sandbox
}

// Sandbox is what a container of a pod with its own network joins: the
// namespace files (agent/network/sandbox pins them) and the files mounted
// as /etc/hosts and /etc/hostname. With HostNetwork the container stays on
// the host's network, UTS namespace and /etc/hosts, and only ResolvFile
// (the kubelet's resolv.conf for the pod's dnsPolicy) is the pod's own.
type Sandbox struct {
	HostNetwork             bool
	NetNS, UTSNS            string
	HostsFile, HostnameFile string
	// ResolvFile is mounted as /etc/resolv.conf; empty: the host's.
	ResolvFile string
	Hostname   string
}

// EnvVar is one environment variable.
type EnvVar struct {
	Name  string
	Value string
}

// Mount binds HostPath into the container at ContainerPath.
type Mount struct {
	HostPath      string
	ContainerPath string
	ReadOnly      bool
}

// State is a container's lifecycle state.
type State string

// States. StateCreated is a container with no task: one whose start failed
// half-way, or one that was running when the host rebooted.
const (
	StateCreated State = "created"
	StateRunning State = "running"
	StateExited  State = "exited"
	StateUnknown State = "unknown"
)

// ContainerStatus describes a container this package created.
type ContainerStatus struct {
	ID, PodUID, Name string
	Image            string
	ImageDigest      string
	LogPath          string
	// Labels are the spec's labels, without this package's own.
	Labels     map[string]string
	State      State
	Pid        uint32
	ExitCode   int
	OOMKilled  bool
	CreatedAt  time.Time
	StartedAt  time.Time
	FinishedAt time.Time
}

var envNamePattern = regexp.MustCompile(`^[^=\x00]+$`)

// validID reports whether s is a container or pod ID containerd and the
// cgroup paths accept: 1-76 of A-Z a-z 0-9 _ . -, the first alphanumeric
// (idrule, not a regexp: its `{0,75}` kept some 80 KB of the agent's heap).
func validID(s string) bool {
	return idrule.Match(s, 1, 76, idrule.Alnum, idrule.Word)
}

// Validate checks the spec and names the first bad field.
func (s *ContainerSpec) Validate() error {
	switch {
	case !validID(s.ID):
		return fmt.Errorf("container spec: id %q: want 1-76 letters, digits, '_', '.', '-', starting with a letter or digit", s.ID)
	case s.Image == "":
		return fmt.Errorf("container spec %s: image is empty", s.ID)
	case s.WorkingDir != "" && !filepath.IsAbs(s.WorkingDir):
		return fmt.Errorf("container spec %s: workingDir %q is not absolute", s.ID, s.WorkingDir)
	case s.LogPath != "" && !filepath.IsAbs(s.LogPath):
		return fmt.Errorf("container spec %s: logPath %q is not absolute", s.ID, s.LogPath)
	case s.MemoryLimit < 0:
		return fmt.Errorf("container spec %s: memoryLimit %d is negative", s.ID, s.MemoryLimit)
	case s.CPUQuota < 0:
		return fmt.Errorf("container spec %s: cpuQuota %d is negative", s.ID, s.CPUQuota)
	case s.CPUQuota > 0 && s.CPUQuota < 1000:
		return fmt.Errorf("container spec %s: cpuQuota %d is below the kernel's minimum of 1000", s.ID, s.CPUQuota)
	}
	for i, e := range s.Env {
		if !envNamePattern.MatchString(e.Name) {
			return fmt.Errorf("container spec %s: env[%d].name %q must be non-empty without '=' or NUL", s.ID, i, e.Name)
		}
	}
	for i, m := range s.Mounts {
		if !filepath.IsAbs(m.HostPath) || !filepath.IsAbs(m.ContainerPath) {
			return fmt.Errorf("container spec %s: mounts[%d]: hostPath %q and containerPath %q must both be absolute", s.ID, i, m.HostPath, m.ContainerPath)
		}
	}
	if err := validateSandbox(s.Sandbox); err != nil {
		return fmt.Errorf("container spec %s: %w", s.ID, err)
	}
	for k := range s.Labels {
		if strings.HasPrefix(k, labelPrefix) {
			return fmt.Errorf("container spec %s: label %q: the %s prefix is reserved", s.ID, k, labelPrefix)
		}
	}
	return nil
}

// validateSandbox checks that the files a container joins are absolute
// paths: the namespaces and hosts files unless on the host's network, the
// resolv.conf when given.
func validateSandbox(sb *Sandbox) error {
	if sb == nil {
		return nil
	}
	files := map[string]string{}
	if !sb.HostNetwork {
		files = map[string]string{"netns": sb.NetNS, "utsns": sb.UTSNS, "hostsFile": sb.HostsFile, "hostnameFile": sb.HostnameFile}
	}
	if sb.ResolvFile != "" {
		files["resolvFile"] = sb.ResolvFile
	}
	for name, p := range files {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("sandbox %s %q is not absolute", name, p)
		}
	}
	return nil
}
