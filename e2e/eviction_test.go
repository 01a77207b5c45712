package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestAgentEvictsOnDiskPressure runs a real agent whose data dir is a
// 48 MiB tmpfs with --eviction-hard nodefs.available<25%: filling it
// evicts the BestEffort pod first (the Burstable one within its request
// still runs when it goes), the Node reports DiskPressure and carries
// node.kubernetes.io/disk-pressure:NoSchedule; freeing the disk clears
// both.
func TestAgentEvictsOnDiskPressure(t *testing.T) {
	const node, ns = "pi-evict", "bramble-e2e-evict"
	dir := smallTmpfs(t, "48m")
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServer(t)
	a := cluster.StartAgentWithDataDir(t, dir, s, d, ns, "--token", cluster.JoinToken(t, s), "--node-name", node,
		"--eviction-hard", "nodefs.available<25%,memory.available<1Ki", "--heartbeat-interval", "1s")
	a.WaitReady(t, s, node)
	a.ImportBusybox(t, d, ns, "docker.io/library/busybox:e2e-evict")
	pod := func(name, mib, resources string) string {
		return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s, namespace: default}
spec:
  nodeName: %s
  terminationGracePeriodSeconds: 1
  volumes: [{name: data, emptyDir: {}}]
  containers:
  - name: app
    image: docker.io/library/busybox:e2e-evict
    imagePullPolicy: Never
    command: [sh, -c, "dd if=/dev/zero of=/data/f bs=1M count=%s && sleep 3600"]
    volumeMounts: [{name: data, mountPath: /data}]
    resources: %s
---
`, name, node, mib, resources)
	}
	if _, stderr, err := s.Apply(pod("besteffort", "8", "{}") + pod("burstable", "2", "{requests: {ephemeral-storage: 40Mi}}")); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
	phase := func(name string) string {
		out, _, _ := s.Kubectl("get", "pod", name, "-o", "jsonpath={.status.phase}/{.status.reason}")
		return out
	}
	cluster.WaitFor(t, 60*time.Second, func() bool {
		return phase("besteffort") == "Running/" && phase("burstable") == "Running/" && fileIn(dir, "f", 8<<20)
	}, "both pods running with their files written")

	ballast := leaveFree(t, dir, 2<<20)
	cluster.WaitFor(t, 60*time.Second, func() bool { return phase("besteffort") == "Failed/Evicted" }, "the BestEffort pod evicted")
	if got := phase("burstable"); got != "Running/" {
		t.Errorf("when the BestEffort pod was evicted: got the Burstable pod %s, want Running (it goes later, if at all)", got)
	}
	cluster.WaitFor(t, 30*time.Second, func() bool {
		return nodeField(s, node) == "True node.kubernetes.io/disk-pressure:NoSchedule"
	}, "DiskPressure True and the disk-pressure taint on the Node")
	if out := s.MustKubectl("describe", "pod", "besteffort"); !strings.Contains(out, "The node was low on resource: ephemeral-storage.") {
		t.Errorf("kubectl describe pod besteffort: got\n%s\nwant the Evicted message", out)
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	cluster.WaitFor(t, 30*time.Second, func() bool { return nodeField(s, node) == "False " },
		"DiskPressure False and no taint once the disk is freed")
}

// nodeField is the node's DiskPressure status and its taints.
func nodeField(s *cluster.Server, node string) string {
	out, _, _ := s.Kubectl("get", "node", node, "-o",
		`jsonpath={.status.conditions[?(@.type=="DiskPressure")].status} {range .spec.taints[*]}{.key}:{.effect}{end}`)
	return out
}

// fileIn reports whether a file named name of at least size bytes lies
// somewhere under dir.
func fileIn(dir, name string, size int64) bool {
	found := false
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && info.Name() == name && info.Size() >= size {
			found = true
		}
		return nil
	})
	return found
}

// leaveFree writes a ballast file in dir so that about free bytes of its
// filesystem are left, and returns its path.
func leaveFree(t *testing.T, dir string, free uint64) string {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	avail := st.Bavail * uint64(st.Bsize)
	if avail <= free {
		t.Fatalf("%s: %d bytes free, cannot leave %d", dir, avail, free)
	}
	path := filepath.Join(dir, "ballast")
	if err := os.WriteFile(path, make([]byte, avail-free), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// smallTmpfs mounts a tmpfs of size, unmounted when the test ends.
func smallTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount a %s tmpfs (needs root): %v: %s", size, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}
