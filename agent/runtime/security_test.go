package runtime

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/containerd/containerd/containers"
	"github.com/containerd/containerd/namespaces"
	"github.com/containerd/containerd/oci"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

func TestCheckNonRootUsesTheKubeletsMessages(t *testing.T) {
	zero, uid := int64(0), int64(1000)
	pod := "web_default(uid-1)"
	for _, tc := range []struct {
		name, imageUser string
		sec             Security
		want            string // "" means allowed
	}{
		{"not asked", "", Security{}, ""},
		{"image root", "", Security{RunAsNonRoot: true}, `container has runAsNonRoot and image will run as root (pod: "web_default(uid-1)", container: main)`},
		{"image uid 0", "0:0", Security{RunAsNonRoot: true}, "image will run as root"},
		{"image name", "nobody", Security{RunAsNonRoot: true}, `container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: "web_default(uid-1)", container: main)`},
		{"image uid", "1000:1000", Security{RunAsNonRoot: true}, ""},
		{"runAsUser wins", "", Security{RunAsNonRoot: true, RunAsUser: &uid}, ""},
		{"runAsUser 0", "1000", Security{RunAsNonRoot: true, RunAsUser: &zero}, "container's runAsUser breaks non-root policy"},
	} {
		tc.sec.PodRef = pod
		err := checkNonRoot(tc.sec, tc.imageUser, "main")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: got %v, want allowed", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, new(*ConfigError))):
			t.Errorf("%s: got %v, want a config error with %q", tc.name, err, tc.want)
		}
	}
}

// applied builds containerd's default spec with the security options of
// sec after extra.
func applied(t *testing.T, sec Security, extra ...oci.SpecOpts) (*oci.Spec, error) {
	t.Helper()
	ctx := namespaces.WithNamespace(context.Background(), "test")
	return oci.GenerateSpec(ctx, nil, &containers.Container{ID: "c"}, append(extra, securityOpts(sec, "")...)...)
}

func TestCapabilitiesFollowTheCRI(t *testing.T) {
	for _, tc := range []struct {
		name      string
		add, drop []string
		want      []string
	}{
		{"drop all add one", []string{"net_admin"}, []string{"ALL"}, []string{"CAP_NET_ADMIN"}},
		{"drop one", nil, []string{"NET_RAW", "CAP_KILL"}, []string{"CAP_AUDIT_WRITE", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_MKNOD", "CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID", "CAP_SETPCAP", "CAP_SETUID", "CAP_SYS_CHROOT"}},
	} {
		s, err := applied(t, Security{CapAdd: tc.add, CapDrop: tc.drop})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := slices.Sorted(slices.Values(s.Process.Capabilities.Bounding))
		if !slices.Equal(got, tc.want) || !slices.Equal(slices.Sorted(slices.Values(s.Process.Capabilities.Effective)), tc.want) {
			t.Errorf("%s: got bounding %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPrivilegedSeccompProcMountAndNamespaces(t *testing.T) {
	s, err := applied(t, Security{Privileged: true, Seccomp: SeccompRuntimeDefault, NoNewPrivileges: false})
	if err != nil {
		t.Fatal(err)
	}
	if s.Linux.Seccomp != nil || len(s.Linux.MaskedPaths) != 0 || s.Process.NoNewPrivileges || len(s.Process.Capabilities.Bounding) <= 14 {
		t.Errorf("privileged: got seccomp %v, masked %v, no_new_privs %v, %d caps; want unconfined, unmasked, off, all caps",
			s.Linux.Seccomp != nil, s.Linux.MaskedPaths, s.Process.NoNewPrivileges, len(s.Process.Capabilities.Bounding))
	}
	s, err = applied(t, Security{Seccomp: SeccompRuntimeDefault, UnmaskedProc: true, HostIPC: true, PIDNamespace: "/proc/42/ns/pid", NoNewPrivileges: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Linux.Seccomp == nil || len(s.Linux.Seccomp.Syscalls) == 0 || !s.Process.NoNewPrivileges || len(s.Linux.MaskedPaths) != 0 {
		t.Errorf("got seccomp %v, no_new_privs %v, masked %v; want containerd's default profile, on, none", s.Linux.Seccomp != nil, s.Process.NoNewPrivileges, s.Linux.MaskedPaths)
	}
	for _, ns := range s.Linux.Namespaces {
		if ns.Type == specs.IPCNamespace || (ns.Type == specs.PIDNamespace && ns.Path != "/proc/42/ns/pid") {
			t.Errorf("namespace %+v: want the host's IPC and PID namespace /proc/42/ns/pid", ns)
		}
	}
	if !slices.ContainsFunc(s.Mounts, func(m specs.Mount) bool { return m.Destination == "/dev/shm" && m.Source == "/dev/shm" }) {
		t.Errorf("hostIPC: got mounts %v, want the host's /dev/shm", s.Mounts)
	}
}

func TestSysctlsStayInTheContainersNamespaces(t *testing.T) {
	sec := Security{Sysctls: map[string]string{"net.ipv4.tcp_syncookies": "1", "kernel.shm_rmid_forced": "1"}}
	s, err := applied(t, sec)
	if err != nil || s.Linux.Sysctl["net.ipv4.tcp_syncookies"] != "1" || s.Linux.Sysctl["kernel.shm_rmid_forced"] != "1" {
		t.Errorf("own namespaces: got %v (%v), want both sysctls set", s.Linux.Sysctl, err)
	}
	_, err = applied(t, sec, oci.WithHostNamespace(specs.NetworkNamespace))
	if !errors.As(err, new(*ConfigError)) || !strings.Contains(err.Error(), `"net.ipv4.tcp_syncookies" not allowed with host net enabled`) {
		t.Errorf("host network: got %v, want the sysctl refused", err)
	}
	sec.HostIPC = true
	delete(sec.Sysctls, "net.ipv4.tcp_syncookies")
	if _, err = applied(t, sec); err == nil || !strings.Contains(err.Error(), "host ipc") {
		t.Errorf("host IPC: got %v, want kernel.shm_rmid_forced refused", err)
	}
}

func TestCheckSecurityNamesTheField(t *testing.T) {
	for want, sec := range map[string]Security{
		"security.seccomp":      {Seccomp: "Strict"},
		"security.seccompPath":  {Seccomp: SeccompLocalhost, SeccompPath: "rel.json"},
		"security.pidNamespace": {PIDNamespace: "/proc/1/ns/pid", HostPID: true},
	} {
		if err := checkSecurity(ContainerSpec{ID: "c", Security: sec}, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error naming %s", err, want)
		}
	}
}
