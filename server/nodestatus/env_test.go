package nodestatus_test

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/storetest"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/apiserver"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/nodestatus"
	"github.com/bramble-edge/bramble/server/pki"
	"github.com/bramble-edge/bramble/server/rbac"
)

// waitLong bounds every wait for something that should happen.
const waitLong = 20 * time.Second

func testLogger() *slog.Logger {
	if os.Getenv("BRAMBLE_TEST_LOG") == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// env is the server half with real parts: a SQLite store, the in-process
// API with the real authenticator and authorizer, the embedded MQTT broker
// on a TLS port, and a Monitor on the broker's inline Bus.
type env struct {
	t      testing.TB
	store  *datastore.SQLite
	faults *storetest.Faults // the store as the Monitor sees it
	api    *apiserver.API
	ca     *pki.PKI
	broker *broker.Broker
	mon    *nodestatus.Monitor
}

func newEnv(t testing.TB, cfg nodestatus.Config) *env {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	e := &env{t: t}
	var err error
	if e.ca, err = pki.Load(filepath.Join(dir, "tls"), pki.Config{SANs: []string{"127.0.0.1"}, Logger: testLogger()}); err != nil {
		t.Fatal(err)
	}
	e.store, err = datastore.OpenSQLite(ctx, filepath.Join(dir, "state.db"), datastore.SQLiteConfig{Logger: testLogger(), CompactInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.store.Close() })
	e.faults = storetest.NewFaults(e.store)
	e.api, err = apiserver.NewAPI(ctx, apiserver.APIConfig{Store: e.store, Authn: auth.NewAuthenticator(e.ca.CAPool(), nil),
		Authz: rbac.New(rbac.NewIndex(), auth.NewNodeAuthorizer(apiserver.NewNodeGraph(e.store, nil))), Log: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	e.broker, err = broker.New(broker.Config{Addr: "127.0.0.1:0", TLS: e.ca.ServingTLSConfig(), Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.broker.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.broker.Stop() })
	e.startMonitor(cfg)
	return e
}

// startMonitor starts a Monitor (a new one: as after a server restart).
func (e *env) startMonitor(cfg nodestatus.Config) {
	e.t.Helper()
	bus := e.broker.Bus()
	e.t.Cleanup(func() { _ = bus.Close() })
	cfg.Bus, cfg.Store, cfg.Writer, cfg.Logger = bus, e.faults, e.api.Registry().Client(), testLogger()
	mon, err := nodestatus.New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := mon.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(mon.Stop)
	e.mon = mon
}

func (e *env) rev() int64 {
	e.t.Helper()
	rev, err := e.store.CurrentRevision(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return rev
}

// agent is a node's MQTT connection: a real paho client over TLS with the
// node's certificate and the retained "offline" Last Will.
type agent struct {
	name string
	c    paho.Client
	mu   sync.Mutex
	conn net.Conn
	seq  uint64
}

func (e *env) connect(t testing.TB, name string) *agent {
	t.Helper()
	certPEM, keyPEM, err := e.ca.NewClientCert(join.NodeUserPrefix+name, []string{join.NodeGroup}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{name: name}
	tlsCfg := &tls.Config{RootCAs: e.ca.CAPool(), Certificates: []tls.Certificate{pair}, ServerName: "127.0.0.1"}
	o := paho.NewClientOptions().AddBroker("tls://"+e.broker.Addr().String()).SetClientID(name).
		SetCleanSession(true).SetAutoReconnect(false).SetConnectTimeout(5*time.Second).
		SetWill(mqtt.PresenceTopic(name), "offline", 1, true)
	o.SetCustomOpenConnectionFn(func(u *url.URL, _ paho.ClientOptions) (net.Conn, error) {
		conn, err := tls.Dial("tcp", u.Host, tlsCfg)
		a.mu.Lock()
		a.conn = conn
		a.mu.Unlock()
		return conn, err
	})
	a.c = paho.NewClient(o)
	if tok := a.c.Connect(); !tok.WaitTimeout(waitLong) || tok.Error() != nil {
		t.Fatalf("connect %s: %v", name, tok.Error())
	}
	t.Cleanup(func() { a.c.Disconnect(0) })
	a.publish(t, mqtt.PresenceTopic(name), true, []byte("online"))
	return a
}

// cut drops the connection without a DISCONNECT, as a Pi losing power
// would: the broker publishes the Last Will.
func (a *agent) cut() {
	a.mu.Lock()
	defer a.mu.Unlock()
	_ = a.conn.Close()
}

func (a *agent) publish(t testing.TB, topic string, retained bool, payload []byte) {
	t.Helper()
	if tok := a.c.Publish(topic, 1, retained, payload); !tok.WaitTimeout(waitLong) || tok.Error() != nil {
		t.Fatalf("publish %s: %v", topic, tok.Error())
	}
}

// beat sends one heartbeat (QoS 1 here, so the test knows the broker has
// it; agents use QoS 0) after f adjusts it.
func (a *agent) beat(t testing.TB, f func(*mqtt.Heartbeat)) {
	t.Helper()
	a.seq++
	hb := heartbeat(a.name, a.seq)
	if f != nil {
		f(hb)
	}
	data, err := hb.Encode()
	if err != nil {
		t.Fatal(err)
	}
	a.publish(t, mqtt.StatusTopic(a.name), false, data)
}

// heartbeat is a healthy 4-core, 4 GiB arm64 node's heartbeat.
func heartbeat(name string, seq uint64) *mqtt.Heartbeat {
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("110")}
	temp := 45.0 + float64(seq%10)
	return &mqtt.Heartbeat{Node: name, Seq: seq, IntervalSeconds: 1,
		Labels: map[string]string{"kubernetes.io/arch": "arm64", "kubernetes.io/os": "linux", "kubernetes.io/hostname": name},
		Taints: []corev1.Taint{{Key: "example.com/edge", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule}},
		Status: mqtt.NodeReport{Capacity: res, Allocatable: res.DeepCopy(),
			Conditions: []mqtt.NodeCondition{
				{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "AgentReady", Message: "beat " + time.Now().String()},
				{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "AgentHasSufficientMemory"},
				{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "AgentHasNoDiskPressure"},
				{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "AgentHasSufficientPID"}},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.7"}, {Type: corev1.NodeHostName, Address: name}},
			NodeInfo: corev1.NodeSystemInfo{Architecture: "arm64", OperatingSystem: "linux", KernelVersion: "6.6.31-v8+",
				OSImage: "Debian GNU/Linux 12 (bookworm)", ContainerRuntimeVersion: "containerd://1.7.24", KubeletVersion: "bramble-test"},
			TemperatureCelsius: &temp}}
}

// waitUntil polls cond until it holds.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", waitLong, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
