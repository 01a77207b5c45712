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

// TestViewerWatchesOverMQTT: Debian's mosquitto_sub, holding credentials
// from `bramble mqtt credentials create --role viewer`, receives the event
// of a kubectl apply over TLS; it never receives a Secret or anything under
// a node's subtree, and what it publishes reaches no one.
func TestViewerWatchesOverMQTT(t *testing.T) {
	for _, bin := range []string{"mosquitto_sub", "mosquitto_pub", "stdbuf"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s missing: this test needs Debian's mosquitto-clients and coreutils", bin)
		}
	}
	s := cluster.StartServer(t)
	dir := t.TempDir()
	for _, name := range []string{"dash", "mallory"} {
		out, err := exec.Command(cluster.Bin, "mqtt", "credentials", "create", "--role", "viewer", "--name", name,
			"--out", filepath.Join(dir, name), "--data-dir", s.DataDir).CombinedOutput()
		if err != nil {
			t.Fatalf("mqtt credentials create %s: %v\n%s", name, err, out)
		}
	}
	conn := func(name string) []string {
		creds := filepath.Join(dir, name)
		return []string{"-h", "127.0.0.1", "-p", strconv.Itoa(s.MQTTPort), "-i", name, "--cafile", filepath.Join(creds, "ca.crt"),
			"--cert", filepath.Join(creds, "client.crt"), "--key", filepath.Join(creds, "client.key")}
	}
	sub := cluster.StartCommand(t, "stdbuf", append([]string{"-oL", "mosquitto_sub", "-v", "-q", "1",
		"-t", "bramble/v1/watch/#", "-t", "bramble/v1/nodes/#"}, conn("dash")...)...)
	time.Sleep(time.Second) // let the subscription land before the writes

	s.MustKubectl("create", "configmap", "before-ready", "--from-literal=k=v")
	cluster.WaitFor(t, 20*time.Second, func() bool { return strings.Contains(sub.Out(), "configmaps/default/before-ready") },
		"the viewer to see a configmap event")

	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dashboard-cm\ndata:\n  color: teal\n---\n" +
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: dashboard-secret\nstringData:\n  password: hunter2\n---\n" +
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: bound\nspec:\n  nodeName: pi-1\n  containers:\n  - name: c\n    image: busybox:1.36\n"
	if out, errOut, err := s.Apply(manifest); err != nil {
		t.Fatalf("apply: %v\n%s%s", err, out, errOut)
	}
	// Another viewer tries to publish where the first one listens and into a
	// node's subtree: viewers may not publish, so nothing forged arrives.
	for _, topic := range []string{"bramble/v1/watch/configmaps/default/forged", "bramble/v1/nodes/pi-1/desired"} {
		_ = exec.Command("mosquitto_pub", append([]string{"-q", "1", "-t", topic, "-m", "forged"}, conn("mallory")...)...).Run()
	}
	cluster.WaitFor(t, 20*time.Second, func() bool {
		o := sub.Out()
		return strings.Contains(o, "bramble/v1/watch/configmaps/default/dashboard-cm") && strings.Contains(o, "teal") &&
			strings.Contains(o, "bramble/v1/watch/pods/default/bound")
	}, "the viewer to see the applied configmap and pod")
	// The subscriber must still be receiving, or the checks below prove
	// nothing.
	s.MustKubectl("create", "configmap", "after-forgery", "--from-literal=k=v")
	cluster.WaitFor(t, 30*time.Second, func() bool { return strings.Contains(sub.Out(), "configmaps/default/after-forgery") },
		"the viewer to keep receiving after the forged publishes")
	got := sub.Out()
	for _, banned := range []string{"dashboard-secret", "hunter2", "aHVudGVyMg", "bramble/v1/nodes/", "forged"} {
		if strings.Contains(got, banned) {
			t.Errorf("the viewer received %q:\n%s", banned, got)
		}
	}
}
