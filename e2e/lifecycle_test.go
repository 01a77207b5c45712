package e2e

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/porttest"
)

// TestRestartKeepsObjects: objects survive a SIGTERM and restart, and a
// second server on the same data dir refuses to start.
func TestRestartKeepsObjects(t *testing.T) {
	s := cluster.StartServer(t)
	s.MustKubectl("create", "namespace", "keep")
	s.MustKubectl("create", "configmap", "kept", "-n", "keep", "--from-literal=k=v")
	before := s.MustKubectl("get", "cm", "kept", "-n", "keep", "-o", "jsonpath={.metadata.uid} {.metadata.resourceVersion}")

	second := exec.Command(cluster.Bin, "server", "--data-dir", s.DataDir, "--https-listen-port", strconv.Itoa(porttest.Free(t)),
		"--bind-address", "127.0.0.1", "--write-kubeconfig", filepath.Join(t.TempDir(), "kc"), "--disable-agent",
		"--mqtt-listen-port", strconv.Itoa(porttest.Free(t)))
	out, err := second.CombinedOutput()
	if err == nil {
		t.Fatalf("second server on the same data dir started:\n%s", out)
	}
	if !strings.Contains(string(out), "in use by another bramble server") {
		t.Errorf("second server's message does not say why: %s", out)
	}

	s.Stop()
	s.Start()
	after := s.MustKubectl("get", "cm", "kept", "-n", "keep", "-o", "jsonpath={.metadata.uid} {.metadata.resourceVersion}")
	if after != before {
		t.Errorf("after restart got %q, want %q", after, before)
	}
	s.MustKubectl("create", "configmap", "later", "-n", "keep", "--from-literal=k=v")
	rv, _ := strconv.Atoi(strings.Fields(after)[1])
	newRV, _ := strconv.Atoi(s.MustKubectl("get", "cm", "later", "-n", "keep", "-o", "jsonpath={.metadata.resourceVersion}"))
	if newRV <= rv {
		t.Errorf("resourceVersion after restart %d is not past %d", newRV, rv)
	}
}

// TestSnapshotSaveRestore: save while the server runs and writes, restore
// while it is stopped, and the restored state is the saved one.
func TestSnapshotSaveRestore(t *testing.T) {
	s := cluster.StartServer(t)
	s.MustKubectl("create", "configmap", "in-snapshot", "--from-literal=k=v")
	snap := filepath.Join(t.TempDir(), "snap.db")
	out, err := exec.Command(cluster.Bin, "datastore", "snapshot", "save", snap, "--data-dir", s.DataDir).CombinedOutput()
	if err != nil {
		t.Fatalf("snapshot save while running: %v\n%s", err, out)
	}
	s.MustKubectl("create", "configmap", "after-snapshot", "--from-literal=k=v")

	out, err = exec.Command(cluster.Bin, "datastore", "snapshot", "restore", snap, "--data-dir", s.DataDir).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "stop it") {
		t.Errorf("restore under a running server: err=%v, out=%s; want a refusal", err, out)
	}
	s.Stop()
	out, err = exec.Command(cluster.Bin, "datastore", "snapshot", "restore", snap, "--data-dir", s.DataDir).CombinedOutput()
	if err != nil {
		t.Fatalf("snapshot restore: %v\n%s", err, out)
	}
	s.Start()
	s.MustKubectl("get", "configmap", "in-snapshot")
	if _, _, err := s.Kubectl("get", "configmap", "after-snapshot"); err == nil {
		t.Errorf("configmap created after the snapshot survived the restore")
	}
	s.MustKubectl("create", "configmap", "after-restore", "--from-literal=k=v")
}

// TestUsersAndRoles: a viewer token reads but cannot write or read Secrets;
// a deleted user is refused; no credentials get 401.
func TestUsersAndRoles(t *testing.T) {
	s := cluster.StartServer(t)
	dir := t.TempDir()
	viewerKC := filepath.Join(dir, "viewer.yaml")
	out, err := exec.Command(cluster.Bin, "user", "create", "alice", "--role", "viewer", "--kubeconfig", s.Kubeconfig, "--out", viewerKC).CombinedOutput()
	if err != nil {
		t.Fatalf("user create: %v\n%s", err, out)
	}
	s.MustKubectl("create", "configmap", "visible", "--from-literal=k=v")
	if out, errOut, err := s.KubectlWith(cluster.KubectlPath, viewerKC, "", "get", "configmaps"); err != nil || !strings.Contains(out, "visible") {
		t.Errorf("viewer get configmaps: %v %s %s", err, out, errOut)
	}
	_, errOut, err := s.KubectlWith(cluster.KubectlPath, viewerKC, "", "create", "configmap", "nope", "--from-literal=k=v")
	if err == nil || !strings.Contains(errOut, "forbidden") || !strings.Contains(errOut, "alice") {
		t.Errorf("viewer create: err=%v stderr=%q, want forbidden naming alice", err, errOut)
	}
	if _, errOut, err := s.KubectlWith(cluster.KubectlPath, viewerKC, "", "get", "secrets"); err == nil || !strings.Contains(errOut, "forbidden") {
		t.Errorf("viewer get secrets: err=%v stderr=%q, want forbidden", err, errOut)
	}
	list, err := exec.Command(cluster.Bin, "user", "list", "--kubeconfig", s.Kubeconfig).CombinedOutput()
	if err != nil || !strings.Contains(string(list), "alice") || !strings.Contains(string(list), "viewer") {
		t.Errorf("user list: %v\n%s", err, list)
	}
	if out, err := exec.Command(cluster.Bin, "user", "delete", "alice", "--kubeconfig", s.Kubeconfig).CombinedOutput(); err != nil {
		t.Fatalf("user delete: %v\n%s", err, out)
	}
	cluster.WaitFor(t, 15*time.Second, func() bool {
		_, errOut, err := s.KubectlWith(cluster.KubectlPath, viewerKC, "", "get", "configmaps")
		return err != nil && strings.Contains(errOut, "must be logged in")
	}, "the deleted user's token to be refused")

	r := cluster.NewAnonymous(t, s).Do("GET", "/api/v1/namespaces", "", nil)
	if r.Code != 401 {
		t.Errorf("anonymous list namespaces: got %d, want 401", r.Code)
	}
	if _, reason, _ := r.Status(t); reason != "Unauthorized" {
		t.Errorf("anonymous: reason %q, want Unauthorized", reason)
	}
}
