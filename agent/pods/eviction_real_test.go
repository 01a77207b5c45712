package pods

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/eviction"
	"github.com/bramble-edge/bramble/agent/nodeinfo"
)

// smallDisk mounts a tmpfs of size MiB for the test: the node's disk.
func smallDisk(t testing.TB, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount a %s tmpfs: %v: %s", size, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// diskPod writes mib MiB into an emptyDir (or its root filesystem when
// volume is empty), then sleeps.
func diskPod(uid, volume string, mib string) *corev1.Pod {
	target := "/data/f"
	if volume == "" {
		target = "/f"
	}
	pod := busyboxPod(uid, "dd if=/dev/zero of="+target+" bs=1M count="+mib+" && sleep 600")
	if volume != "" {
		pod.Spec.Volumes = []corev1.Volume{{Name: volume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: volume, MountPath: "/data"}}
	}
	return pod
}

func usageOf(us []eviction.PodUsage, uid types.UID) int64 {
	for _, u := range us {
		if u.Pod.UID == uid {
			return u.Disk
		}
	}
	return -1
}

func diskPressure(t testing.TB, dataDir string, th nodeinfo.Thresholds) corev1.ConditionStatus {
	t.Helper()
	n, err := nodeinfo.Collect(context.Background(), nodeinfo.Config{NodeName: "pi-1", DataDir: dataDir, Thresholds: th})
	if err != nil {
		t.Fatalf("collect node status: %v", err)
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeDiskPressure {
			return c.Status
		}
	}
	t.Fatalf("no DiskPressure condition in %+v", n.Status.Conditions)
	return ""
}

func evictedWith(t testing.TB, log *statusLog, uid types.UID, part string) {
	t.Helper()
	s := waitStatus(t, log, uid, 20*time.Second, "Failed, Evicted", func(s corev1.PodStatus) bool {
		return s.Phase == corev1.PodFailed && s.ContainerStatuses[0].State.Terminated != nil
	})
	if s.Reason != ReasonEvicted || !strings.Contains(s.Message, part) {
		t.Errorf("pod %s: got reason %q message %q, want Evicted with %q", uid, s.Reason, s.Message, part)
	}
	if condition(s, corev1.DisruptionTarget) != corev1.ConditionTrue {
		t.Errorf("pod %s: got conditions %+v, want DisruptionTarget True (TerminationByKubelet)", uid, s.Conditions)
	}
}

// On a 32 MiB disk with nodefs.available<20%: pods over an emptyDir
// sizeLimit or a container's ephemeral-storage limit are evicted first;
// filling the disk then sets DiskPressure and evicts the BestEffort pod,
// not the Burstable one within its request, and frees its space.
func TestRealEvictionOnASmallDisk(t *testing.T) {
	rt, _, _ := realRuntime(t)
	disk := smallDisk(t, "32m")
	log, evs := &statusLog{}, &eventLog{}
	m, _ := realManager(t, rt, &fakeStore{}, log, func(c *Config) {
		c.Events, c.DataDir = evs, disk
		c.PodLogDir, c.ContainerLogDir = filepath.Join(disk, "log/pods"), filepath.Join(disk, "log/containers")
	})
	be := diskPod("evict-be", "data", "8")
	burst := diskPod("evict-burst", "data", "2")
	burst.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("16Mi")}
	capped := diskPod("evict-capped", "scratch", "2")
	capped.Spec.Volumes[0].EmptyDir.SizeLimit = ptrTo(resource.MustParse("1Mi"))
	ctrcap := diskPod("evict-ctrcap", "", "2")
	ctrcap.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("1Mi")}
	idle := shContainer("idle", "sleep 600")
	idle.Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("8Mi")}
	ctrcap.Spec.Containers = append(ctrcap.Spec.Containers, idle) // the pod's total stays under 9Mi
	m.Sync([]*corev1.Pod{be, burst, capped, ctrcap})
	deadline := time.Now().Add(30 * time.Second)
	for us := m.Usage(context.Background()); usageOf(us, be.UID) < 8<<20 || usageOf(us, burst.UID) < 2<<20 ||
		usageOf(us, capped.UID) < 2<<20 || usageOf(us, ctrcap.UID) < 2<<20; us = m.Usage(context.Background()) {
		if time.Now().After(deadline) {
			t.Fatalf("pods' disk usage: got %+v, want each pod's file written", us)
		}
		time.Sleep(100 * time.Millisecond)
	}
	th := nodeinfo.Thresholds{DiskFree: nodeinfo.Threshold{Percent: 20}, MemoryAvailable: nodeinfo.Threshold{Bytes: 1},
		InodesFree: nodeinfo.Threshold{Bytes: 1}, PIDsFree: nodeinfo.Threshold{Bytes: 1}}
	ev := eviction.New(m, eviction.Config{DataDir: disk, Thresholds: th, Logger: testLogger(t)})
	got := ev.Round(context.Background())
	slices.Sort(got)
	if want := []types.UID{capped.UID, ctrcap.UID}; !slices.Equal(got, want) {
		t.Fatalf("first round: got %v evicted, want %v (over their own limits)", got, want)
	}
	evictedWith(t, log, capped.UID, `Usage of EmptyDir volume "scratch" exceeds the limit "1Mi".`)
	evictedWith(t, log, ctrcap.UID, `Container main exceeded its local ephemeral storage limit "1Mi".`)
	if got := ev.Round(context.Background()); len(got) > 0 || diskPressure(t, disk, th) != corev1.ConditionFalse {
		t.Fatalf("disk not full: got %v evicted and DiskPressure %s, want none and False", got, diskPressure(t, disk, th))
	}

	fill(t, disk, 3<<20)
	if got := diskPressure(t, disk, th); got != corev1.ConditionTrue {
		t.Errorf("disk filled to 3 MiB free: got DiskPressure %s, want True", got)
	}
	if got := ev.Round(context.Background()); !slices.Equal(got, []types.UID{be.UID}) {
		t.Fatalf("disk filled: got %v evicted, want only the BestEffort pod %s", got, be.UID)
	}
	evictedWith(t, log, be.UID, "The node was low on resource: ephemeral-storage. Threshold quantity: 6710886, available: ")
	if evs.count(ReasonEvicted, "The node was low on resource: ephemeral-storage.") != 1 {
		t.Errorf("events: got %+v, want one Evicted for the BestEffort pod", evs.evs)
	}
	if got := diskPressure(t, disk, th); got != corev1.ConditionFalse {
		t.Errorf("after the eviction freed its emptyDir: got DiskPressure %s, want False", got)
	}
	if s, _ := log.get(burst.UID); s.Phase != corev1.PodRunning {
		t.Errorf("Burstable pod within its request: got phase %s, want Running", s.Phase)
	}
}

// fill writes a file to dir leaving about free bytes of its filesystem.
func fill(t testing.TB, dir string, free uint64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	avail := st.Bavail * uint64(st.Bsize)
	if avail <= free {
		t.Fatalf("disk %s: %d bytes free, cannot leave %d", dir, avail, free)
	}
	if err := os.WriteFile(filepath.Join(dir, "filler"), make([]byte, avail-free), 0o644); err != nil {
		t.Fatalf("fill the disk: %v", err)
	}
}
