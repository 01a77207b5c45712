package pods

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// podCgroupFile reads a control file of a cgroup: v1File in the
// controller's hierarchy on cgroup v1, v2File on the unified one.
func podCgroupFile(t testing.TB, path, controller, v1File, v2File string) string {
	t.Helper()
	file := filepath.Join("/sys/fs/cgroup", controller, path, v1File)
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		file = filepath.Join("/sys/fs/cgroup", path, v2File)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read pod cgroup: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// The pod's containers run under a cgroup of the pod whose limits are
// the containers' plus the pod's overhead, as the kubelet's pod cgroup;
// it goes with the pod.
func TestRealPodCgroupCountsOverhead(t *testing.T) {
	rt, client, nsCtx := realRuntime(t)
	log := &statusLog{}
	m, _ := realManager(t, rt, &fakeStore{}, log)
	pod := busyboxPod("overhead-1", "sleep 600")
	res := corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi"), corev1.ResourceCPU: resource.MustParse("200m")}
	pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{Limits: res, Requests: res}
	pod.Spec.Overhead = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("16Mi"), corev1.ResourceCPU: resource.MustParse("100m")}
	m.Sync([]*corev1.Pod{pod})
	waitStatus(t, log, pod.UID, 20*time.Second, "running", func(s corev1.PodStatus) bool {
		return s.ContainerStatuses[0].State.Running != nil
	})
	cg := rt.PodCgroup(string(pod.UID))
	ctr, err := client.LoadContainer(nsCtx, ContainerID(pod.UID, "main", 0))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ctr.Spec(nsCtx)
	if err != nil {
		t.Fatal(err)
	}
	if got := spec.Linux.CgroupsPath; filepath.Dir(got) != cg {
		t.Errorf("container cgroup: got %s, want it under the pod's %s", got, cg)
	}
	if got := podCgroupFile(t, cg, "memory", "memory.limit_in_bytes", "memory.max"); got != "50331648" {
		t.Errorf("pod memory limit: got %s, want 48Mi (32Mi + 16Mi overhead) = 50331648", got)
	}
	if got := podCgroupFile(t, cg, "cpu", "cpu.cfs_quota_us", "cpu.max"); got != "30000" && got != "30000 100000" {
		t.Errorf("pod cpu quota: got %s, want 300m (200m + 100m overhead) = 30000 per 100000", got)
	}
	for _, u := range m.Usage(context.Background()) {
		if u.Pod.UID == pod.UID && (u.Memory <= 0 || u.Memory > 48<<20) {
			t.Errorf("pod memory working set: got %d bytes, want some, within the 48Mi limit", u.Memory)
		}
	}
	m.Delete(pod.UID)
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := os.Stat(filepath.Join("/sys/fs/cgroup/memory", cg))
		if _, v2 := os.Stat("/sys/fs/cgroup/cgroup.controllers"); v2 == nil {
			_, err = os.Stat(filepath.Join("/sys/fs/cgroup", cg))
		}
		if os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod deleted: its cgroup %s is still there (%v)", cg, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A pod deleted while the agent was down is an orphan at the next start:
// its containers are removed, then its cgroup.
func TestRealOrphanPodCgroupRemoved(t *testing.T) {
	rt, _, _ := realRuntime(t)
	log := &statusLog{}
	m1, _ := realManager(t, rt, &fakeStore{}, log)
	pod := busyboxPod("orphan-cg-1", "sleep 600")
	m1.Sync([]*corev1.Pod{pod})
	waitStatus(t, log, pod.UID, 20*time.Second, "running", func(s corev1.PodStatus) bool {
		return s.ContainerStatuses[0].State.Running != nil
	})
	m1.Stop()
	cg := rt.PodCgroup(string(pod.UID))
	dir := filepath.Join("/sys/fs/cgroup/memory", cg)
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		dir = filepath.Join("/sys/fs/cgroup", cg)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("pod cgroup before the restart: %v", err)
	}
	m2, _ := realManager(t, rt, &fakeStore{}, log)
	m2.Sync(nil)
	deadline := time.Now().Add(20 * time.Second)
	for _, err := os.Stat(dir); !os.IsNotExist(err); _, err = os.Stat(dir) {
		if time.Now().After(deadline) {
			t.Fatalf("orphan pod cgroup %s: still there (%v)", dir, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
