package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/e2e/cluster"
	"github.com/bramble-edge/bramble/internal/porttest"
	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/pki"
)

// TestMosquittoACLFollowsNodes drives the real binary with
// --mqtt-broker at Debian's mosquitto running the shipped configuration,
// and --mosquitto-acl/--mosquitto-pid: a node that joins is in the ACL
// when its join is answered and reaches its subtree through mosquitto;
// once its Node is deleted its section is gone and its live session gets
// nothing more.
func TestMosquittoACLFollowsNodes(t *testing.T) {
	s := cluster.StartServer(t)
	token := cluster.JoinToken(t, s)
	s.Stop()
	m := startShippedMosquitto(t, filepath.Join(s.DataDir, "server", "tls"))
	serverCreds := filepath.Join(t.TempDir(), "server-creds")
	ca, err := pki.Load(filepath.Join(s.DataDir, "server", "tls"), pki.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := broker.CreateServerCredentials(ca, "", serverCreds, time.Hour); err != nil {
		t.Fatal(err)
	}
	s.Start("--mqtt-broker", m.url, "--mqtt-ca", filepath.Join(serverCreds, "ca.crt"),
		"--mqtt-cert", filepath.Join(serverCreds, "client.crt"), "--mqtt-key", filepath.Join(serverCreds, "client.key"),
		"--mosquitto-acl", m.acl, "--mosquitto-pid", m.pid)

	creds, err := nodejoin.Join(context.Background(), nodejoin.JoinConfig{ServerURL: s.URL(), Token: token, NodeName: "pi-acl"})
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	if nodes := m.nodes(t); !slices.Equal(nodes, []string{"pi-acl"}) {
		t.Fatalf("ACL nodes when the join was answered: got %v, want [pi-acl]; server:\n%s", nodes, s.Logs())
	}
	node := dialNode(t, m, creds)
	other := dialOtherServer(t, m, ca)
	node.waitReceives(t, other, mqtt.DesiredTopic("pi-acl"), "before")

	if _, stderr, err := s.Apply("apiVersion: v1\nkind: Node\nmetadata:\n  name: pi-acl\n"); err != nil {
		t.Fatalf("kubectl apply Node: %v: %s", err, stderr)
	}
	reloads := m.reloads()
	s.MustKubectl("delete", "node", "pi-acl")
	cluster.WaitFor(t, 10*time.Second, func() bool { return len(m.nodes(t)) == 0 }, "the deleted node's ACL section to go")
	cluster.WaitFor(t, 10*time.Second, func() bool { return m.reloads() > reloads }, "mosquitto to reload its ACL")
	other.publish(t, mqtt.DesiredTopic("pi-acl"), "after")
	other.publish(t, mqtt.Prefix+"/barrier", "") // mosquitto has one thread: "after" went out before this PUBACK
	time.Sleep(300 * time.Millisecond)
	if got := node.received(); slices.Contains(got, "after") {
		t.Errorf("the deleted node still received on its live session: %v", got)
	}
}

// dialNode connects as the joined node, with its credentials, and
// subscribes to its subtree.
func dialNode(t *testing.T, m *shippedMosquitto, creds *nodejoin.Credentials) *mqttClient {
	t.Helper()
	tc, err := creds.TLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	c := dialMQTT(t, m, nodejoin.NodeUserPrefix+creds.NodeName, tc)
	c.subscribe(t, mqtt.NodeSubtree(creds.NodeName)+"#")
	return c
}

// dialOtherServer connects as a second server identity (bramble:server:e2e,
// granted in the ACL here), which may publish anywhere; the real server's
// own identity would take over the server's session.
func dialOtherServer(t *testing.T, m *shippedMosquitto, ca *pki.PKI) *mqttClient {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "other")
	if err := broker.CreateServerCredentials(ca, "bramble:server:e2e", dir, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := broker.UpdateMosquittoACL(m.acl, func(a *broker.MosquittoACL) { a.Servers = append(a.Servers, "bramble:server:e2e") }); err != nil {
		t.Fatal(err)
	}
	reloads := m.reloads()
	if err := broker.ReloadMosquitto(m.pid); err != nil {
		t.Fatal(err)
	}
	cluster.WaitFor(t, 10*time.Second, func() bool { return m.reloads() > reloads }, "mosquitto to reload its ACL")
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, broker.CredentialsCertFile), filepath.Join(dir, broker.CredentialsKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	return dialMQTT(t, m, "bramble:server:e2e", &tls.Config{RootCAs: ca.CAPool(), Certificates: []tls.Certificate{pair}})
}

// shippedMosquitto is mosquitto started with packaging/mosquitto's
// configuration and ACL, its paths and port changed.
type shippedMosquitto struct {
	url, acl, pid, log string
}

func startShippedMosquitto(t *testing.T, tlsDir string) *shippedMosquitto {
	t.Helper()
	bin := "/usr/sbin/mosquitto"
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("mosquitto not found at %s: this test needs Debian's mosquitto (apt-get install -y mosquitto)", bin)
	}
	dir := t.TempDir()
	for from, to := range map[string]string{"ca.crt": "ca.crt", "serving.crt": "server.crt", "serving.key": "server.key"} {
		copyTo(t, filepath.Join(tlsDir, from), filepath.Join(dir, to))
	}
	copyTo(t, "../packaging/mosquitto/acl", filepath.Join(dir, "acl"))
	port := porttest.Free(t)
	m := &shippedMosquitto{url: fmt.Sprintf("mqtts://127.0.0.1:%d", port), acl: filepath.Join(dir, "acl"),
		pid: filepath.Join(dir, "mosquitto.pid"), log: filepath.Join(dir, "mosquitto.log")}
	conf := filepath.Join(dir, "mosquitto.conf")
	if err := os.WriteFile(conf, []byte(shippedConfig(t, dir, port, m)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", conf)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start mosquitto: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	cluster.WaitFor(t, 10*time.Second, func() bool {
		_, err := os.Stat(m.pid)
		return err == nil
	}, "mosquitto to write its pid file")
	return m
}

func shippedConfig(t *testing.T, dir string, port int, m *shippedMosquitto) string {
	t.Helper()
	raw, err := os.ReadFile("../packaging/mosquitto/bramble.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := strings.ReplaceAll(string(raw), "/etc/mosquitto/bramble/", dir+"/")
	conf = strings.Replace(conf, "\nlistener 8883\n", fmt.Sprintf("\nlistener %d 127.0.0.1\n", port), 1)
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return conf + fmt.Sprintf("\nuser %s\npid_file %s\nlog_dest file %s\nlog_type all\n", me.Username, m.pid, m.log)
}

func copyTo(t *testing.T, from, to string) {
	t.Helper()
	raw, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// nodes are the node sections of the ACL file now.
func (m *shippedMosquitto) nodes(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(m.acl)
	if err != nil {
		t.Fatal(err)
	}
	acl, err := broker.ParseMosquittoACL(raw)
	if err != nil {
		t.Fatalf("%s: %v", m.acl, err)
	}
	return acl.Nodes
}

// reloads counts mosquitto's "Reloading config" log lines.
func (m *shippedMosquitto) reloads() int {
	raw, _ := os.ReadFile(m.log)
	return strings.Count(string(raw), "Reloading config")
}

// mqttClient is a paho client and what it received on its subscription.
type mqttClient struct {
	c   paho.Client
	mu  sync.Mutex
	got []string
}

func dialMQTT(t *testing.T, m *shippedMosquitto, clientID string, tc *tls.Config) *mqttClient {
	t.Helper()
	mc := &mqttClient{}
	o := paho.NewClientOptions().AddBroker(strings.Replace(m.url, "mqtts://", "tls://", 1)).SetClientID(clientID).
		SetTLSConfig(tc).SetAutoReconnect(false).SetConnectRetry(false).SetCleanSession(true).SetProtocolVersion(4)
	mc.c = paho.NewClient(o)
	if tok := mc.c.Connect(); !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("MQTT connect as %s: %v", clientID, tok.Error())
	}
	t.Cleanup(func() { mc.c.Disconnect(0) })
	return mc
}

func (mc *mqttClient) subscribe(t *testing.T, filter string) {
	t.Helper()
	tok := mc.c.Subscribe(filter, 1, func(_ paho.Client, msg paho.Message) {
		mc.mu.Lock()
		mc.got = append(mc.got, string(msg.Payload()))
		mc.mu.Unlock()
	})
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("subscribe %s: %v", filter, tok.Error())
	}
}

func (mc *mqttClient) publish(t *testing.T, topic, payload string) {
	t.Helper()
	tok := mc.c.Publish(topic, 1, false, payload)
	if !tok.WaitTimeout(10*time.Second) || tok.Error() != nil {
		t.Fatalf("publish %s: %v", topic, tok.Error())
	}
}

func (mc *mqttClient) received() []string {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	return slices.Clone(mc.got)
}

// waitReceives has from publish payload on topic until mc receives it (a
// fresh ACL may take a moment to be read).
func (mc *mqttClient) waitReceives(t *testing.T, from *mqttClient, topic, payload string) {
	t.Helper()
	cluster.WaitFor(t, 10*time.Second, func() bool {
		from.publish(t, topic, payload)
		time.Sleep(100 * time.Millisecond)
		return slices.Contains(mc.received(), payload)
	}, "the node to receive on its subtree through mosquitto")
}
