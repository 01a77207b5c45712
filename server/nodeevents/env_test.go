package nodeevents_test

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/nodeevents"
	"github.com/bramble-edge/bramble/server/pki"
	"github.com/bramble-edge/bramble/server/registry"
	"github.com/bramble-edge/bramble/server/registry/registrytest"
)

const waitLong = 20 * time.Second

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// env is the server half with real parts: the registry on SQLite, the
// embedded broker on a TLS port, and an Ingest on the broker's Bus.
type env struct {
	t      *testing.T
	reg    *registry.Registry
	client *registry.Client
	ca     *pki.PKI
	broker *broker.Broker
	ingest *nodeevents.Ingest
}

func newEnv(t *testing.T, cfg nodeevents.Config) *env {
	t.Helper()
	e := &env{t: t, reg: registrytest.New(t)}
	e.client = e.reg.Client()
	var err error
	if e.ca, err = pki.Load(filepath.Join(t.TempDir(), "tls"), pki.Config{SANs: []string{"127.0.0.1"}, Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	if e.broker, err = broker.New(broker.Config{Addr: "127.0.0.1:0", TLS: e.ca.ServingTLSConfig(), Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	if err := e.broker.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.broker.Stop() })
	bus := e.broker.Bus()
	t.Cleanup(func() { _ = bus.Close() })
	cfg.Bus, cfg.Client, cfg.Logger = bus, e.client, quiet
	cfg.Events = nodeevents.RegistryEvents(e.reg)
	e.startIngest(cfg)
	return e
}

// startIngest starts a new Ingest (as after a server restart).
func (e *env) startIngest(cfg nodeevents.Config) {
	e.t.Helper()
	var err error
	if e.ingest, err = nodeevents.New(cfg); err != nil {
		e.t.Fatal(err)
	}
	if err := e.ingest.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(e.ingest.Stop)
}

// create stores obj through the registry.
func (e *env) create(obj api.Object) {
	e.t.Helper()
	if _, err := e.client.Create(context.Background(), obj); err != nil {
		e.t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

func (e *env) node(name string) {
	e.create(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
}

// pod stores a pod bound to node and returns it as stored.
func (e *env) pod(name, node string) *corev1.Pod {
	e.t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Image: "busybox"}}}}
	out, err := e.client.Create(context.Background(), p)
	if err != nil {
		e.t.Fatalf("create pod %s: %v", name, err)
	}
	return out.(*corev1.Pod)
}

// events lists the stored Events.
func (e *env) events() []corev1.Event {
	e.t.Helper()
	res := api.MustLookup("", "v1", "events")
	list, err := e.reg.List(context.Background(), res, "", registry.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	out := make([]corev1.Event, 0, len(list.Items))
	for _, o := range list.Items {
		out = append(out, *o.(*corev1.Event))
	}
	return out
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", waitLong, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// nodeConn is a node's MQTT connection: a real paho client over TLS with
// the node's certificate. It is an events.Publisher.
type nodeConn struct{ c paho.Client }

func (e *env) connect(name string) *nodeConn {
	e.t.Helper()
	certPEM, keyPEM, err := e.ca.NewClientCert(join.NodeUserPrefix+name, []string{join.NodeGroup}, time.Hour)
	if err != nil {
		e.t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		e.t.Fatal(err)
	}
	tlsCfg := &tls.Config{RootCAs: e.ca.CAPool(), Certificates: []tls.Certificate{pair}, ServerName: "127.0.0.1"}
	o := paho.NewClientOptions().AddBroker("tls://" + e.broker.Addr().String()).SetClientID(name).
		SetCleanSession(true).SetAutoReconnect(false).SetConnectTimeout(5 * time.Second)
	o.SetCustomOpenConnectionFn(func(u *url.URL, _ paho.ClientOptions) (net.Conn, error) { return tls.Dial("tcp", u.Host, tlsCfg) })
	c := paho.NewClient(o)
	if tok := c.Connect(); !tok.WaitTimeout(waitLong) || tok.Error() != nil {
		e.t.Fatalf("connect %s: %v", name, tok.Error())
	}
	e.t.Cleanup(func() { c.Disconnect(0) })
	return &nodeConn{c}
}

func (n *nodeConn) Publish(_ context.Context, topic string, qos byte, payload []byte) error {
	tok := n.c.Publish(topic, qos, false, payload)
	tok.WaitTimeout(waitLong)
	return tok.Error()
}
