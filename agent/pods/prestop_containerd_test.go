package pods

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The preStop hook runs before SIGTERM; a container ignoring SIGTERM is
// killed once the grace period, the hook's time included, is over.
func TestRealPreStopThenGracePeriod(t *testing.T) {
	rt, client, nsCtx := realRuntime(t)
	log := &statusLog{}
	m, _ := realManager(t, rt, &fakeStore{}, log)
	out := t.TempDir()
	pod := busyboxPod("prestop-1", `trap 'echo "TERM after: $(cat /tmp/hook)" > /out/polite; exit 0' TERM; while true; do sleep 0.1; done`)
	pod.Spec.TerminationGracePeriodSeconds = ptrTo[int64](3)
	polite := &pod.Spec.Containers[0]
	polite.Name = "polite"
	polite.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{
		Command: []string{"sh", "-c", "echo prestop-ran > /tmp/hook"}}}}
	stubborn := *polite
	stubborn.Name, stubborn.Command = "stubborn", []string{"sh", "-c", `trap '' TERM; while true; do sleep 0.1; done`}
	stubborn.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 1}}}
	pod.Spec.Containers = append(pod.Spec.Containers, stubborn)
	pod.Spec.Volumes = []corev1.Volume{{Name: "out", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: out}}}}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "out", MountPath: "/out"}}
	m.Sync([]*corev1.Pod{pod})
	waitStatus(t, log, pod.UID, 20*time.Second, "both running", func(s corev1.PodStatus) bool {
		return len(s.ContainerStatuses) == 2 && s.ContainerStatuses[0].State.Running != nil && s.ContainerStatuses[1].State.Running != nil
	})
	start := time.Now()
	m.Delete(pod.UID)
	s := waitStatus(t, log, pod.UID, 20*time.Second, "stubborn killed", func(s corev1.PodStatus) bool {
		st := ctrStatus(t, s, "stubborn").State.Terminated
		return st != nil && st.ExitCode == 137
	})
	took := time.Since(start)
	if took < 2900*time.Millisecond || took > 10*time.Second {
		t.Errorf("stubborn container: got killed after %s, want about the 3 s grace period (1 s hook, then SIGTERM for 2 s)", took)
	}
	if st := ctrStatus(t, s, "polite").State.Terminated; st == nil || st.ExitCode != 0 {
		t.Errorf("polite container: got %+v, want exit 0 on SIGTERM", st)
	}
	b, err := os.ReadFile(filepath.Join(out, "polite"))
	if err != nil || strings.TrimSpace(string(b)) != "TERM after: prestop-ran" {
		t.Errorf("polite container on SIGTERM: got %q (%v), want the hook's file written first", b, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for cs, err := client.Containers(nsCtx); err != nil || len(cs) > 0; cs, err = client.Containers(nsCtx) {
		if time.Now().After(deadline) {
			t.Fatalf("after Delete: got %d containers (%v), want none", len(cs), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
