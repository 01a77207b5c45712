package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

const storageClaim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: work
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 64Mi
`

// storagePod mounts claim data at /data (and its sub/ folder at /sub)
// with fsGroup 2000, running command.
func storagePod(command string) string {
	return `apiVersion: v1
kind: Pod
metadata:
  name: app
  namespace: work
spec:
  terminationGracePeriodSeconds: 1
  securityContext:
    fsGroup: 2000
  containers:
  - name: app
    image: docker.io/library/busybox:e2e-agent
    imagePullPolicy: Never
    command: ["sh", "-c", "` + command + `"]
    volumeMounts:
    - {name: d, mountPath: /data}
    - {name: d, mountPath: /sub, subPath: sub}
  volumes:
  - name: d
    persistentVolumeClaim:
      claimName: data
`
}

// TestLocalPathStorage: the built-in local-path provisioner on a real
// agent and containerd. A claim (default class local-path,
// WaitForFirstConsumer) gets no volume until a pod uses it; the pod's
// node then hosts the directory (made by the agent), a file written
// survives the pod being deleted and made again, the claim is kept while
// a pod uses it, and deleting it (reclaim Delete) removes the volume and
// the directory.
func TestLocalPathStorage(t *testing.T) {
	const node, ns = "pi-storage", "bramble-e2e-storage"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerWithAgent(t, d, ns, node)
	defer func() {
		if t.Failed() {
			t.Logf("server and embedded agent output:\n%s", s.Logs())
		}
	}()
	waitNodeReady(t, s, node)
	cluster.ImportBusybox(t, s.DataDir, d, ns, "docker.io/library/busybox:e2e-agent")
	s.MustKubectl("create", "namespace", "work")
	mustApply(t, s, storageClaim)
	time.Sleep(2 * time.Second)
	if out := s.MustKubectl("get", "pv", "-o", "name"); out != "" {
		t.Fatalf("volumes before a pod uses the claim: got %q, want none", out)
	}
	waitOutput(t, s, "Pending local-path", "get", "pvc", "data", "-n", "work", "-o", "jsonpath={.status.phase} {.spec.storageClassName}")

	mustApply(t, s, storagePod("echo kept > /data/f; echo sub > /sub/g; ls -ln /data > /data/ls; sleep 3600"))
	waitOutput(t, s, "Running", "get", "pod", "app", "-n", "work", "-o", "jsonpath={.status.phase}")
	waitOutput(t, s, "Bound", "get", "pvc", "data", "-n", "work", "-o", "jsonpath={.status.phase}")
	volume := s.MustKubectl("get", "pvc", "data", "-n", "work", "-o", "jsonpath={.spec.volumeName}")
	dir := s.MustKubectl("get", "pv", volume, "-o", "jsonpath={.spec.hostPath.path}")
	if affinity := s.MustKubectl("get", "pv", volume, "-o", "jsonpath={.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}"); affinity != node {
		t.Errorf("volume node affinity: got %q, want %s", affinity, node)
	}
	if want := filepath.Join(s.DataDir, "storage") + "/"; !strings.HasPrefix(dir, want) {
		t.Errorf("volume directory: got %q, want it under %s", dir, want)
	}
	cluster.WaitFor(t, 30*time.Second, func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "sub", "g"))
		return err == nil && string(b) == "sub\n"
	},
		"the pod's files in the volume's directory on the node")
	if fi, err := os.Stat(dir); err != nil || fi.Sys().(*syscall.Stat_t).Gid != 2000 {
		t.Errorf("volume directory: got %v, %v; want it given to fsGroup 2000", fi, err)
	}

	s.MustKubectl("delete", "pod", "app", "-n", "work", "--wait=true")
	mustApply(t, s, storagePod("cat /data/f; sleep 3600"))
	waitOutput(t, s, "kept", "logs", "app", "-n", "work")

	s.MustKubectl("delete", "pvc", "data", "-n", "work", "--wait=false")
	time.Sleep(2 * time.Second)
	if out := s.MustKubectl("get", "pvc", "data", "-n", "work", "-o", "jsonpath={.metadata.finalizers}"); !strings.Contains(out, "kubernetes.io/pvc-protection") {
		t.Fatalf("claim in use: got finalizers %q, want it kept by kubernetes.io/pvc-protection", out)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("directory of a claim in use: %v", err)
	}
	s.MustKubectl("delete", "pod", "app", "-n", "work", "--wait=true")
	cluster.WaitFor(t, 30*time.Second, func() bool {
		out, _, _ := s.Kubectl("get", "pvc,pv", "-A", "-o", "name")
		return out == ""
	}, "the claim and its volume to be gone")
	cluster.WaitFor(t, 30*time.Second, func() bool { _, err := os.Stat(dir); return os.IsNotExist(err) },
		"the agent to remove the volume's directory")
}

func mustApply(t *testing.T, s *cluster.Server, manifest string) {
	t.Helper()
	if _, stderr, err := s.Apply(manifest); err != nil {
		t.Fatalf("kubectl apply: %v: %s", err, stderr)
	}
}

// waitOutput waits up to 60 s for kubectl args to print want (contained).
func waitOutput(t *testing.T, s *cluster.Server, want string, args ...string) string {
	t.Helper()
	var out string
	cluster.WaitFor(t, 60*time.Second, func() bool {
		out, _, _ = s.Kubectl(args...)
		return strings.Contains(out, want)
	}, "kubectl "+strings.Join(args, " ")+" to print "+want)
	return out
}
