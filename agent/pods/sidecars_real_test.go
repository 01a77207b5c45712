package pods

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func sidecarPod(uid, out string, policy corev1.RestartPolicy) *corev1.Pod {
	pod := busyboxPod(uid, "")
	pod.Spec.RestartPolicy = policy
	pod.Spec.TerminationGracePeriodSeconds = ptrTo[int64](5)
	pod.Spec.Volumes = []corev1.Volume{{Name: "out", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: out}}}}
	mount := []corev1.VolumeMount{{Name: "out", MountPath: "/out"}}
	ctr := func(name, script string) corev1.Container {
		return corev1.Container{Name: name, Image: busybox, ImagePullPolicy: corev1.PullNever,
			Command: []string{"sh", "-c", script}, VolumeMounts: mount}
	}
	side := ctr("side", `if [ -f /out/crashed ]; then echo side-again >> /out/order; else echo side >> /out/order; fi
trap 'echo side-term >> /out/order; exit 0' TERM
if [ ! -f /out/crashed ]; then touch /out/crashed; sleep 1; exit 1; fi
while true; do sleep 0.1; done`)
	side.RestartPolicy = ptrTo(corev1.ContainerRestartPolicyAlways)
	pod.Spec.InitContainers = []corev1.Container{side, ctr("init", `echo init >> /out/order`)}
	main := `echo main >> /out/order; sleep 2; echo main-done >> /out/order`
	if policy == corev1.RestartPolicyAlways {
		main = `echo main >> /out/order; trap 'sleep 0.5; echo main-term >> /out/order; exit 0' TERM; while true; do sleep 0.1; done`
	}
	pod.Spec.Containers = []corev1.Container{ctr("main", main)}
	return pod
}

// checkOrder compares the order the containers wrote with want, leaving
// out the sidecar's restart, which must come once, after the init
// container (when exactly depends on the machine's speed).
func checkOrder(t testing.TB, dir, want string) {
	t.Helper()
	got := readOrder(t, dir)
	words := strings.Fields(got)
	again := slices.Index(words, "side-again")
	rest := slices.DeleteFunc(slices.Clone(words), func(w string) bool { return w == "side-again" })
	if strings.Join(rest, " ") != want || again < slices.Index(words, "init") || strings.Count(got, "side-again") != 1 {
		t.Errorf("order: got %q, want %q with one side-again (the sidecar's restart) after init", got, want)
	}
}

func readOrder(t testing.TB, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "order"))
	if err != nil {
		t.Fatalf("read order: %v", err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// A native sidecar starts before the next init container and the app
// container, is restarted when it exits while they run, and is stopped
// after them: when a Job-like pod's app container completes, and when a
// pod is deleted.
func TestRealNativeSidecar(t *testing.T) {
	rt, _, _ := realRuntime(t)
	log := &statusLog{}
	m, _ := realManager(t, rt, &fakeStore{}, log)
	jobOut, svcOut := t.TempDir(), t.TempDir()
	job := sidecarPod("sidecar-job", jobOut, corev1.RestartPolicyNever)
	svc := sidecarPod("sidecar-svc", svcOut, corev1.RestartPolicyAlways)
	m.Sync([]*corev1.Pod{job, svc})

	s := waitStatus(t, log, job.UID, 30*time.Second, "job pod Succeeded", func(s corev1.PodStatus) bool {
		return s.Phase == corev1.PodSucceeded && ctrStatus(t, s, "side").State.Terminated != nil
	})
	if got := condition(s, corev1.PodInitialized); got != corev1.ConditionTrue {
		t.Errorf("job pod Initialized: got %s, want True", got)
	}
	// The sidecar crashed once (its first run exits after 1 s) and came back.
	checkOrder(t, jobOut, "side init main main-done side-term")
	waitStatus(t, log, svc.UID, 20*time.Second, "sidecar restarted, main running", func(s corev1.PodStatus) bool {
		sc, mc := ctrStatus(t, s, "side"), ctrStatus(t, s, "main")
		return s.Phase == corev1.PodRunning && sc.RestartCount == 1 && sc.State.Running != nil &&
			mc.State.Running != nil && mc.RestartCount == 0 && sc.Started != nil && *sc.Started
	})
	m.Delete(svc.UID)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.HasSuffix(readOrder(t, svcOut), "side-term") {
		if time.Now().After(deadline) {
			t.Fatalf("svc pod deleted: got order %q, want it to end with side-term", readOrder(t, svcOut))
		}
		time.Sleep(100 * time.Millisecond)
	}
	checkOrder(t, svcOut, "side init main main-term side-term") // the sidecar stops after main
}
