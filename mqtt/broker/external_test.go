package broker_test

import (
	"context"
	"crypto/tls"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/internal/porttest"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
)

// newMosquittoEnv starts mosquitto with the shipped configuration, the
// cluster CA and a serving certificate from it, and the shipped ACL.
func newMosquittoEnv(t *testing.T) (*brokerEnv, *mosquitto) {
	ca := newTestCA(t)
	dir := filepath.Join(t.TempDir(), "mosquitto")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(ca.dir, "ca.crt"), filepath.Join(dir, "ca.crt"))
	copyFile(t, filepath.Join(ca.dir, "serving.crt"), filepath.Join(dir, "server.crt"))
	copyFile(t, filepath.Join(ca.dir, "serving.key"), filepath.Join(dir, "server.key"))
	copyFile(t, "../../packaging/mosquitto/acl", filepath.Join(dir, "acl"))
	port := porttest.Free(t)
	m := startMosquitto(t, dir, port)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	bus := serverBus(t, ca, addr)
	m.barrier = func(t testing.TB) { busPublish(t, bus, mqtt.Prefix+"/barrier", 1, "") }
	env := &brokerEnv{addr: addr, ca: ca, bus: bus,
		addNode: func(t testing.TB, node string) tls.Certificate {
			m.updateACL(t, func(a *broker.MosquittoACL) { a.Nodes = append(a.Nodes, node) })
			return ca.nodeCert(t, node)
		},
		addViewer: func(t testing.TB, name string) string {
			d := viewerCredentials(t, ca, name)
			m.updateACL(t, func(a *broker.MosquittoACL) { a.Viewers = append(a.Viewers, name) })
			return d
		},
		revoke: func(t testing.TB, node string) {
			m.updateACL(t, func(a *broker.MosquittoACL) {
				a.Nodes = slices.DeleteFunc(a.Nodes, func(n string) bool { return n == node })
			})
		},
		settle: func(testing.TB, string) {}, // one thread: a finished client was handled in order
	}
	return env, m
}

func TestMosquittoIsolation(t *testing.T) {
	env, _ := newMosquittoEnv(t)
	runIsolationSuite(t, env)
}

// TestDialExternalResubscribesAfterRestart: the server's Bus outlives a broker
// restart and gets its subscriptions back.
func TestDialExternalResubscribesAfterRestart(t *testing.T) {
	env, m := newMosquittoEnv(t)
	in := newInbox()
	if err := env.bus.Subscribe(mqtt.Prefix+"/nodes/+/status", 1, in.add); err != nil {
		t.Fatal(err)
	}
	cert := env.addNode(t, "pi-1")
	heartbeat := func(n int) string {
		want := mqtt.StatusTopic("pi-1") + " beat-" + strconv.Itoa(n)
		deadline := time.Now().Add(waitLong)
		for !slices.Contains(in.all(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("waited %s for %q; got %q", waitLong, want, in.all())
			}
			if c, err := dial(t, pahoOptions(env.addr, "pi-1", clientTLS(env.ca.CAPool(), &cert), nil)); err == nil {
				publish(t, c, mqtt.StatusTopic("pi-1"), 1, "beat-"+strconv.Itoa(n))
				c.Disconnect(0)
			}
			time.Sleep(200 * time.Millisecond)
		}
		return want
	}
	heartbeat(1)
	m.stop(t)
	m.start(t)
	heartbeat(2)
	busPublish(t, env.bus, mqtt.DesiredTopic("pi-1"), 1, "after-restart") // publishing works again too
}

func TestDialExternalRefusesBadConfig(t *testing.T) {
	ca := newTestCA(t)
	cert := ca.clientCert(t, broker.DefaultServerName, broker.ServerGroup)
	good := clientTLS(ca.CAPool(), &cert)
	cases := map[string]broker.ExternalConfig{
		"plain mqtt":   {URL: "mqtt://127.0.0.1:1883", TLS: good},
		"no host":      {URL: "mqtts://", TLS: good},
		"path":         {URL: "mqtts://h:1/x", TLS: good},
		"user":         {URL: "mqtts://u:p@h:1", TLS: good},
		"not a URL":    {URL: "::", TLS: good},
		"no TLS":       {URL: "mqtts://127.0.0.1:1"},
		"no client ID": {URL: "mqtts://127.0.0.1:1", TLS: clientTLS(ca.CAPool(), nil)},
		"nobody there": {URL: "mqtts://127.0.0.1:" + strconv.Itoa(porttest.Free(t)), TLS: good, Timeout: 2 * time.Second},
	}
	for name, cfg := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), waitLong)
		bus, err := broker.DialExternal(ctx, cfg)
		cancel()
		if err == nil {
			_ = bus.Close()
			t.Errorf("%s: DialExternal succeeded, want an error", name)
		} else if !strings.Contains(err.Error(), "mqtt") {
			t.Errorf("%s: got %v, want an error that says it is about MQTT", name, err)
		}
	}
}

func TestMosquittoBusRefusesBadInput(t *testing.T) {
	env, _ := newMosquittoEnv(t)
	testBusRefusesBadInput(t, env.bus)
}
