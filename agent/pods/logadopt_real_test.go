package pods

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// A restarted agent adopts the running container and puts back its
// /var/log/containers link when it is missing (wiped while the agent was
// down), pointing at the same log file, which the container still writes.
func TestRealAdoptedContainerGetsItsLogLink(t *testing.T) {
	rt, _, _ := realRuntime(t)
	dir := t.TempDir()
	sameDirs := func(c *Config) {
		c.DataDir, c.PodLogDir, c.ContainerLogDir = dir, filepath.Join(dir, "pods"), filepath.Join(dir, "containers")
	}
	log := &statusLog{}
	m1, _ := realManager(t, rt, &fakeStore{}, log, sameDirs)
	pod := busyboxPod("relink-1", "while true; do echo tick; sleep 0.2; done")
	m1.Sync([]*corev1.Pod{pod})
	waitStatus(t, log, pod.UID, 20*time.Second, "running", func(s corev1.PodStatus) bool {
		return s.ContainerStatuses[0].State.Running != nil
	})
	m1.Stop()
	link := m1.logs.link(pod.Namespace, pod.Name, "main", ContainerID(pod.UID, "main", 0))
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatalf("link of the first agent: %v", err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "containers")); err != nil {
		t.Fatal(err)
	}

	m2, _ := realManager(t, rt, &fakeStore{}, log, sameDirs)
	m2.Sync([]*corev1.Pod{pod})
	deadline := time.Now().Add(10 * time.Second)
	for got, err := os.Readlink(link); got != target; got, err = os.Readlink(link) {
		if time.Now().After(deadline) {
			t.Fatalf("after adoption: got link to %q (%v), want %q", got, err, target)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s, _ := log.get(pod.UID); s.ContainerStatuses[0].RestartCount != 0 {
		t.Errorf("adopted container: got restart count %d, want 0 (adopted, not restarted)", s.ContainerStatuses[0].RestartCount)
	}
	waitLog(t, link, "tick")
}
