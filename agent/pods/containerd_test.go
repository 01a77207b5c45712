package pods

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/runtime"
)

// realManager runs a Manager on the private containerd with short
// back-offs.
func realManager(t testing.TB, rt runtime.Runtime, store *fakeStore, log *statusLog, opts ...func(*Config)) (*Manager, string) {
	t.Helper()
	dataDir := t.TempDir()
	cfg := Config{
		DataDir: dataDir, NodeName: "pi-1", NodeIP: "127.0.0.1", SyncPeriod: 100 * time.Millisecond,
		BackoffInitial: 300 * time.Millisecond, BackoffMax: 2 * time.Second, DefaultGrace: 2 * time.Second,
		Logger: testLogger(t), PodLogDir: filepath.Join(dataDir, "log", "pods"),
		ContainerLogDir: filepath.Join(dataDir, "log", "containers"),
	}
	for _, o := range opts {
		o(&cfg)
	}
	m, err := NewManager(rt, store.lookup, log.record, cfg)
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	m.Start(context.Background())
	t.Cleanup(m.Stop)
	return m, dataDir
}

func busyboxPod(uid, script string) *corev1.Pod {
	pod := testPod(corev1.RestartPolicyAlways, "main")
	pod.UID, pod.Name = types.UID(uid), uid
	c := &pod.Spec.Containers[0]
	c.Image, c.ImagePullPolicy, c.Command = busybox, corev1.PullNever, []string{"sh", "-c", script}
	return pod
}

// waitStatus polls the pod's reported status until ok accepts it.
func waitStatus(t testing.TB, log *statusLog, uid types.UID, timeout time.Duration, what string, ok func(corev1.PodStatus) bool) corev1.PodStatus {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s, found := log.get(uid)
		if found && ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s: got status %+v after %s, want %s", uid, s, timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRealPodWithConfigMapRunsAndIsDeleted(t *testing.T) {
	rt, client, nsCtx := realRuntime(t)
	store, log := &fakeStore{}, &statusLog{}
	store.set(KindConfigMap, "default", "cfg", map[string]string{"greeting": "hello from cm", "key": "file content"})
	m, dataDir := realManager(t, rt, store, log)
	pod := busyboxPod("real-1", `echo $GREETING; cat /etc/cfg/key; echo; sleep 3600`)
	c := &pod.Spec.Containers[0]
	c.Env = []corev1.EnvVar{{Name: "GREETING", ValueFrom: cmKey("cfg", "greeting", false)}}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/cfg", ReadOnly: true}}
	c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/etc/cfg/key"}}}, PeriodSeconds: 1}
	pod.Spec.Volumes = []corev1.Volume{{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}}}
	m.Sync([]*corev1.Pod{pod})
	s := waitStatus(t, log, pod.UID, 20*time.Second, "Running and Ready", func(s corev1.PodStatus) bool {
		return s.Phase == corev1.PodRunning && condition(s, corev1.PodReady) == corev1.ConditionTrue
	})
	id := strings.TrimPrefix(s.ContainerStatuses[0].ContainerID, "containerd://")
	if id != ContainerID(pod.UID, "main", 0) {
		t.Errorf("container ID: got %s, want %s", id, ContainerID(pod.UID, "main", 0))
	}
	assertTaskRunning(t, client, nsCtx, id)
	logFile := filepath.Join(dataDir, "log/pods/default_real-1_real-1/main/0.log")
	waitLog(t, logFile, "stdout F hello from cm")
	waitLog(t, logFile, "stdout F file content")

	m.Delete(pod.UID)
	deadline := time.Now().Add(20 * time.Second)
	for {
		cs, err := client.Containers(nsCtx)
		_, statErr := os.Stat(filepath.Join(dataDir, "agent/pods/real-1"))
		if err == nil && len(cs) == 0 && os.IsNotExist(statErr) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Delete: got %d containers (err %v), pod dir stat %v; want none and no dir", len(cs), err, statErr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func assertTaskRunning(t testing.TB, client *containerd.Client, ctx context.Context, id string) {
	t.Helper()
	ctr, err := client.LoadContainer(ctx, id)
	if err != nil {
		t.Fatalf("containerd's view: load container %s: %v", id, err)
	}
	task, err := ctr.Task(ctx, nil)
	if err != nil {
		t.Fatalf("containerd's view: task of %s: %v", id, err)
	}
	st, err := task.Status(ctx)
	if err != nil || st.Status != containerd.Running {
		t.Fatalf("containerd's view: got task status %v (%v), want running", st.Status, err)
	}
}

func waitLog(t testing.TB, path, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("log %s: got %q, want a line with %q", path, b, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRealCrashLoopBackOff(t *testing.T) {
	rt, _, _ := realRuntime(t)
	log := &statusLog{}
	m, _ := realManager(t, rt, &fakeStore{}, log)
	pod := busyboxPod("crash-1", "exit 3")
	m.Sync([]*corev1.Pod{pod})
	s := waitStatus(t, log, pod.UID, 30*time.Second, "CrashLoopBackOff with restartCount >= 2", func(s corev1.PodStatus) bool {
		c := s.ContainerStatuses[0]
		return waitingReason(c) == "CrashLoopBackOff" && c.RestartCount >= 2
	})
	last := s.ContainerStatuses[0].LastTerminationState.Terminated
	if last == nil || last.ExitCode != 3 || last.Reason != "Error" {
		t.Errorf("lastState: got %+v, want terminated exit 3 reason Error", last)
	}
}

func TestRealOOMKilled(t *testing.T) {
	rt, _, _ := realRuntime(t)
	log := &statusLog{}
	m, _ := realManager(t, rt, &fakeStore{}, log)
	pod := busyboxPod("oom-1", `x=0123456789; while true; do x=$x$x; done`)
	pod.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("24Mi")}
	m.Sync([]*corev1.Pod{pod})
	waitStatus(t, log, pod.UID, 40*time.Second, "lastState OOMKilled", func(s corev1.PodStatus) bool {
		last := s.ContainerStatuses[0].LastTerminationState.Terminated
		return last != nil && last.Reason == "OOMKilled" && last.ExitCode == 137
	})
}
