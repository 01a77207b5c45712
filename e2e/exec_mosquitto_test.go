package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/pki"
)

// TestExecMosquitto: the stream requests go through Debian's mosquitto
// running the shipped configuration and ACL (the server's --mqtt-broker);
// exec and port-forward work as with the embedded broker, SPDY and
// WebSocket alike.
func TestExecMosquitto(t *testing.T) {
	const node, ns = "pi-exec-mq", "bramble-e2e-exec-mq"
	d := cluster.PrivateContainerd(t)
	s := cluster.StartServerWithAgent(t, d, ns, node)
	s.Stop()
	m := startShippedMosquitto(t, filepath.Join(s.DataDir, "server", "tls"))
	creds := filepath.Join(t.TempDir(), "server-creds")
	ca, err := pki.Load(filepath.Join(s.DataDir, "server", "tls"), pki.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := broker.CreateServerCredentials(ca, "", creds, time.Hour); err != nil {
		t.Fatal(err)
	}
	s.Start("--mqtt-broker", m.url, "--mqtt-ca", filepath.Join(creds, "ca.crt"),
		"--mqtt-cert", filepath.Join(creds, "client.crt"), "--mqtt-key", filepath.Join(creds, "client.key"),
		"--mosquitto-acl", m.acl, "--mosquitto-pid", m.pid)
	waitNodeReady(t, s, node)
	cluster.ImportBusybox(t, s.DataDir, d, ns, "docker.io/library/busybox:e2e-agent")
	s.MustKubectl("create", "namespace", "work")
	startExecPods(t, s, node)
	for _, v := range []string{"1.29", "1.33"} {
		t.Run(v, func(t *testing.T) {
			testExecBasics(t, s, kubectlBin(v))
			testPortForward(t, s, kubectlBin(v))
		})
	}
	if t.Failed() {
		t.Logf("server and embedded agent output:\n%s", s.Logs())
	}
}
