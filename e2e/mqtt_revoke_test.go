package e2e

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// TestViewerCredentialSharedThenRevoked drives the real binary and
// Debian's mosquitto_sub: two dashboards share one viewer credential
// (client IDs dash/kitchen and dash/hall) and both receive a kubectl
// change; `bramble mqtt credentials list` shows it; after `delete` both
// are cut off and refused when they try again.
func TestViewerCredentialSharedThenRevoked(t *testing.T) {
	for _, bin := range []string{"mosquitto_sub", "stdbuf"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s missing: this test needs Debian's mosquitto-clients and coreutils", bin)
		}
	}
	s := cluster.StartServer(t)
	creds := filepath.Join(t.TempDir(), "dash")
	cluster.MustRun(t, cluster.Bin, "mqtt", "credentials", "create", "--role", "viewer", "--name", "dash",
		"--out", creds, "--data-dir", s.DataDir)
	sub := func(clientID string) *cluster.Background {
		return cluster.StartCommand(t, "stdbuf", "-oL", "mosquitto_sub", "-v", "-q", "1", "-h", "127.0.0.1",
			"-p", strconv.Itoa(s.MQTTPort), "-i", clientID, "--cafile", filepath.Join(creds, "ca.crt"),
			"--cert", filepath.Join(creds, "client.crt"), "--key", filepath.Join(creds, "client.key"),
			"-t", "bramble/v1/watch/#")
	}
	kitchen, hall := sub("dash/kitchen"), sub("dash/hall")
	time.Sleep(time.Second) // let the subscriptions land before the write
	s.MustKubectl("create", "configmap", "shared", "--from-literal=k=v")
	for name, b := range map[string]*cluster.Background{"dash/kitchen": kitchen, "dash/hall": hall} {
		cluster.WaitFor(t, 20*time.Second, func() bool { return strings.Contains(b.Out(), "configmaps/default/shared") },
			name+" to see the configmap")
	}
	list := cluster.MustRun(t, cluster.Bin, "mqtt", "credentials", "list", "--data-dir", s.DataDir)
	if !strings.Contains(list, "dash") || !strings.Contains(list, "active") {
		t.Fatalf("credentials list: got %q, want dash active", list)
	}
	cluster.MustRun(t, cluster.Bin, "mqtt", "credentials", "delete", "dash", "--data-dir", s.DataDir)
	before := map[string]int{"dash/kitchen": len(kitchen.Out()), "dash/hall": len(hall.Out())}
	s.MustKubectl("create", "configmap", "after-revoke", "--from-literal=k=v")
	time.Sleep(3 * time.Second)
	for name, b := range map[string]*cluster.Background{"dash/kitchen": kitchen, "dash/hall": hall} {
		if strings.Contains(b.Out()[before[name]:], "after-revoke") {
			t.Errorf("%s still receives changes after its credential was deleted:\n%s", name, b.Out())
		}
	}
	if list := cluster.MustRun(t, cluster.Bin, "mqtt", "credentials", "list", "--data-dir", s.DataDir); !strings.Contains(list, "revoked") {
		t.Errorf("credentials list after delete: got %q, want dash revoked", list)
	}
	for name, b := range map[string]*cluster.Background{"dash/kitchen": kitchen, "dash/hall": hall} {
		cluster.WaitFor(t, 10*time.Second, func() bool { return strings.Contains(b.Out(), "not authorised") },
			name+" to be refused when it connects again")
	}
}
