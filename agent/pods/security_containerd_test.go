package pods

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// securedPod runs the probe script in "locked" (every field a chart sets),
// "plain" (root, defaults otherwise) and "priv" (privileged) containers.
func securedPod(uid string) *corev1.Pod {
	const report = `id; grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status; ` +
		`touch /rootfs-write 2>/dev/null && echo ROOTFS-WRITABLE || echo ROOTFS-READONLY; ` +
		`stat -c 'data gid=%g mode=%A' /data; touch /data/new; stat -c 'new gid=%g' /data/new; ` +
		`stat -L -c 'secret gid=%g mode=%a' /secret/token; echo "shm_rmid_forced=$(cat /proc/sys/kernel/shm_rmid_forced)"; grep ' /sys ' /proc/mounts; echo DONE; sleep 3600`
	pod := busyboxPod(uid, report)
	pod.Spec.Containers[0].Name = "locked"
	plain, priv := pod.Spec.Containers[0], pod.Spec.Containers[0]
	plain.Name, priv.Name = "plain", "priv"
	// Both run as root: a non-root process has no effective capabilities.
	plain.SecurityContext = &corev1.SecurityContext{RunAsUser: ptrTo[int64](0)}
	priv.SecurityContext = &corev1.SecurityContext{Privileged: ptrTo(true), RunAsUser: ptrTo[int64](0)}
	pod.Spec.Containers = append(pod.Spec.Containers, plain, priv)
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{
		RunAsUser: ptrTo[int64](1234), RunAsGroup: ptrTo[int64](2345),
		SupplementalGroups: []int64{3456}, FSGroup: ptrTo[int64](4567),
		Sysctls: []corev1.Sysctl{{Name: "kernel.shm_rmid_forced", Value: "1"}},
	}
	pod.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{
		ReadOnlyRootFilesystem:   ptrTo(true),
		AllowPrivilegeEscalation: ptrTo(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: []corev1.Capability{"NET_BIND_SERVICE"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	pod.Spec.Volumes = []corev1.Volume{
		{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}},
	}
	for i := range pod.Spec.Containers {
		pod.Spec.Containers[i].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}, {Name: "secret", MountPath: "/secret", ReadOnly: true}}
	}
	return pod
}

func TestRealSecurityContextInsideContainers(t *testing.T) {
	rt, _, _ := realRuntime(t)
	log := &statusLog{}
	store := &fakeStore{}
	store.set(KindSecret, "default", "s", map[string]string{"token": "t0ken"})
	m, dataDir := realManager(t, rt, store, log)
	pod := securedPod("sec-1")
	m.Sync([]*corev1.Pod{pod})
	want := map[string][]string{
		"locked": {"uid=1234 gid=2345 groups=", "3456", "4567", "CapBnd:\t0000000000000400", "CapEff:\t0000000000000000", "NoNewPrivs:\t1",
			"Seccomp:\t2", "ROOTFS-READONLY", "data gid=4567 mode=drwxrwsrwx", "new gid=4567",
			"secret gid=4567 mode=640", "shm_rmid_forced=1"},
		"plain": {"uid=0 gid=2345", "CapBnd:\t00000000a80425fb", "CapEff:\t00000000a80425fb", "NoNewPrivs:\t0", "Seccomp:\t0", "ROOTFS-WRITABLE", " ro,"},
		"priv":  {"uid=0 gid=2345", "NoNewPrivs:\t0", "Seccomp:\t0", " rw,"},
	}
	for name, lines := range want {
		file := attemptLog(dataDir, pod, name, 0)
		waitLog(t, file, "DONE")
		for _, l := range lines {
			waitLog(t, file, l)
		}
	}
	privCaps := grepLog(t, attemptLog(dataDir, pod, "priv", 0), "CapEff:")
	if strings.HasSuffix(privCaps, "00000000a80425fb") || strings.HasSuffix(privCaps, "0000000000000000") {
		t.Errorf("privileged container: got %q, want every capability the agent holds", privCaps)
	}
}

func TestRealRunAsNonRootRefusesRootImage(t *testing.T) {
	rt, _, _ := realRuntime(t)
	log := &statusLog{}
	m, _ := realManager(t, rt, &fakeStore{}, log)
	pod := busyboxPod("nonroot-1", "sleep 3600")
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptrTo(true)}
	m.Sync([]*corev1.Pod{pod})
	want := `container has runAsNonRoot and image will run as root (pod: "nonroot-1_default(nonroot-1)", container: main)`
	waitStatus(t, log, pod.UID, 20*time.Second, "CreateContainerConfigError: "+want, func(s corev1.PodStatus) bool {
		c := s.ContainerStatuses[0]
		return waitingReason(c) == "CreateContainerConfigError" && c.State.Waiting.Message == want
	})
}

func TestRealSharedProcessNamespace(t *testing.T) {
	rt, _, _ := realRuntime(t)
	log := &statusLog{}
	m, dataDir := realManager(t, rt, &fakeStore{}, log)
	pod := busyboxPod("pidns-1", "sleep 3600")
	pod.Spec.ShareProcessNamespace = ptrTo(true)
	pod.Spec.Containers[0].Name = "first"
	second := pod.Spec.Containers[0]
	second.Name, second.Command = "second", []string{"sh", "-c", "ps -o pid,args; echo DONE; sleep 3600"}
	pod.Spec.Containers = append(pod.Spec.Containers, second)
	m.Sync([]*corev1.Pod{pod})
	file := attemptLog(dataDir, pod, "second", 0)
	waitLog(t, file, "DONE")
	waitLog(t, file, "sleep 3600")
}

// grepLog returns the first line of the log holding s.
func grepLog(t testing.TB, file, s string) string {
	t.Helper()
	b, _ := os.ReadFile(file)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("log %s: got %q, want a line with %q", file, b, s)
	return ""
}

func TestRealHostPIDAndIPC(t *testing.T) {
	rt, _, _ := realRuntime(t)
	log := &statusLog{}
	m, dataDir := realManager(t, rt, &fakeStore{}, log)
	hostInit, err := os.ReadFile("/proc/1/comm")
	if err != nil {
		t.Fatal(err)
	}
	ipcNS, err := os.Readlink("/proc/self/ns/ipc")
	if err != nil {
		t.Fatal(err)
	}
	pod := busyboxPod("hostns-1", `echo "init=$(cat /proc/1/comm)"; echo "ipc=$(readlink /proc/self/ns/ipc)"; echo DONE; sleep 3600`)
	pod.Spec.HostPID, pod.Spec.HostIPC = true, true
	m.Sync([]*corev1.Pod{pod})
	file := attemptLog(dataDir, pod, "main", 0)
	waitLog(t, file, "DONE")
	waitLog(t, file, "init="+strings.TrimSpace(string(hostInit)))
	waitLog(t, file, "ipc="+ipcNS)
}

// attemptLog is the log file of a container attempt of a pod run by
// realManager (its PodLogDir is <dataDir>/log/pods).
func attemptLog(dataDir string, pod *corev1.Pod, container string, attempt int) string {
	return filepath.Join(podLogDir(filepath.Join(dataDir, "log", "pods"), pod.Namespace, pod.Name, pod.UID), container, strconv.Itoa(attempt)+".log")
}
