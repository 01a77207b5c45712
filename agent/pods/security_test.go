package pods

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/runtime"
)

func TestSecurityForMergesAsTheKubelet(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "main")
	pod.Spec.HostPID = true
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{
		RunAsUser: ptrTo[int64](1000), RunAsGroup: ptrTo[int64](2000), RunAsNonRoot: ptrTo(true),
		FSGroup: ptrTo[int64](3000), SupplementalGroups: []int64{4000, 5000},
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		Sysctls:        []corev1.Sysctl{{Name: "net/ipv4/tcp_syncookies", Value: "1"}},
	}
	c := &pod.Spec.Containers[0]
	c.SecurityContext = &corev1.SecurityContext{
		RunAsUser: ptrTo[int64](1001), ReadOnlyRootFilesystem: ptrTo(true), AllowPrivilegeEscalation: ptrTo(false),
		ProcMount:      ptrTo(corev1.UnmaskedProcMount),
		Capabilities:   &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}, Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptrTo("profiles/audit.json")},
	}
	sec, err := securityFor(pod, c, "/var/lib/seccomp")
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case *sec.RunAsUser != 1001 || *sec.RunAsGroup != 2000 || !sec.RunAsNonRoot:
		t.Errorf("user: got %d:%d nonRoot %v, want the container's 1001, the pod's 2000, true", *sec.RunAsUser, *sec.RunAsGroup, sec.RunAsNonRoot)
	case !slices.Equal(sec.SupplementalGroups, []int64{3000, 4000, 5000}):
		t.Errorf("groups: got %v, want fsGroup then the supplemental groups", sec.SupplementalGroups)
	case !sec.ReadOnlyRootfs || !sec.NoNewPrivileges || !sec.UnmaskedProc || !sec.HostPID:
		t.Errorf("got %+v, want read-only root, no_new_privs, unmasked /proc, host PID", sec)
	case sec.Seccomp != runtime.SeccompLocalhost || sec.SeccompPath != "/var/lib/seccomp/profiles/audit.json":
		t.Errorf("seccomp: got %s %s, want the container's Localhost profile under the root", sec.Seccomp, sec.SeccompPath)
	case sec.Sysctls["net.ipv4.tcp_syncookies"] != "1" || sec.PodRef != "web_default(uid-1)":
		t.Errorf("got sysctls %v, pod %q; want net.ipv4.tcp_syncookies=1, web_default(uid-1)", sec.Sysctls, sec.PodRef)
	case !slices.Equal(sec.CapAdd, []string{"NET_ADMIN"}) || !slices.Equal(sec.CapDrop, []string{"ALL"}):
		t.Errorf("capabilities: got add %v drop %v", sec.CapAdd, sec.CapDrop)
	}
}

func TestSecurityForDefaultsAndRefusals(t *testing.T) {
	pod := testPod(corev1.RestartPolicyAlways, "main")
	sec, err := securityFor(pod, &pod.Spec.Containers[0], "/r")
	if err != nil || sec.NoNewPrivileges || sec.Seccomp != "" || sec.RunAsUser != nil {
		t.Errorf("no security context: got %+v (%v), want escalation allowed, unconfined, the image's user", sec, err)
	}
	for want, psc := range map[string]*corev1.PodSecurityContext{
		`forbidden sysctl: "kernel.msgmax" not allowlisted`: {Sysctls: []corev1.Sysctl{{Name: "kernel.msgmax", Value: "1"}}},
		"localhostProfile \"../etc/x\"":                     {SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptrTo("../etc/x")}},
		"seccompProfile.type \"Bogus\"":                     {SeccompProfile: &corev1.SeccompProfile{Type: "Bogus"}},
	} {
		pod.Spec.SecurityContext = psc
		if _, err := securityFor(pod, &pod.Spec.Containers[0], "/r"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want an error with %q", err, want)
		}
	}
}

func TestSetOwnershipAndOnRootMismatch(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "sub", "f")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(what string, gid uint32, mode os.FileMode) {
		t.Helper()
		info, err := os.Stat(file)
		if err != nil || info.Sys().(*syscall.Stat_t).Gid != gid || info.Mode() != mode {
			t.Errorf("%s: got %v gid %d (%v), want %v gid %d", what, info.Mode(), info.Sys().(*syscall.Stat_t).Gid, err, mode, gid)
		}
	}
	if err := setOwnership(dir, 4567, false, false); err != nil {
		t.Fatal(err)
	}
	check("Always", 4567, 0o660)
	if info, _ := os.Stat(filepath.Dir(file)); info.Mode()&os.ModeSetgid == 0 || info.Mode().Perm() != 0o770 {
		t.Errorf("directory: got %v, want setgid and group rwx", info.Mode())
	}
	if err := os.Chown(file, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := setOwnership(dir, 4567, false, true); err != nil {
		t.Fatal(err)
	}
	check("OnRootMismatch with a matching root", 0, 0o660)
	if err := setOwnership(dir, 4567, true, false); err != nil {
		t.Fatal(err)
	}
	check("Always again", 4567, 0o660)
}
