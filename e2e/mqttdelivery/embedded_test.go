package mqttdelivery

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/bramble-edge/bramble/internal/porttest"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
)

// embedded is bramble's own broker for the delivery test. kill stops it
// (every node session and queued message is lost); start runs a new one on
// the same address. The server's side reaches it through its inline Bus,
// which a switchBus re-points at each new broker, as a restarted server's
// would be.
type embedded struct {
	t    testing.TB
	c    *cluster
	addr string
	mu   sync.Mutex
	b    *broker.Broker
	bus  *switchBus
}

func newEmbedded(t testing.TB, c *cluster) *embedded {
	t.Helper()
	e := &embedded{t: t, c: c, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(porttest.Free(t))), bus: &switchBus{subs: map[string]sub{}}}
	e.start()
	t.Cleanup(e.kill)
	return e
}

func (e *embedded) url() string { return "mqtts://" + e.addr }

func (e *embedded) start() {
	e.t.Helper()
	b, err := broker.New(broker.Config{Addr: e.addr, TLS: e.c.pki.ServingTLSConfig(), CertCheck: e.c.registry.Check, Logger: quiet()})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := b.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.mu.Lock()
	e.b = b
	e.mu.Unlock()
	e.bus.switchTo(b.Bus())
}

func (e *embedded) kill() {
	e.mu.Lock()
	b := e.b
	e.b = nil
	e.mu.Unlock()
	if b != nil {
		e.bus.switchTo(nil)
		_ = b.Stop()
	}
}

// serverBus hands the publisher the switching bus; closing it only drops
// the publisher's subscriptions, as with a real Bus.
func (e *embedded) serverBus() mqtt.Bus { return e.bus.view() }

// switchBus forwards to the current broker's inline Bus and subscribes
// again on every new one.
type switchBus struct {
	mu   sync.Mutex
	cur  mqtt.Bus
	subs map[string]sub
	next int
}

type sub struct {
	filter  string
	qos     byte
	handler func(topic string, payload []byte)
}

func (s *switchBus) switchTo(b mqtt.Bus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		_ = s.cur.Close()
	}
	s.cur = b
	if b == nil {
		return
	}
	for _, x := range s.subs {
		_ = b.Subscribe(x.filter, x.qos, x.handler)
	}
}

// view is one user's handle on the switchBus: Close forgets its own
// subscriptions only.
func (s *switchBus) view() mqtt.Bus { return &busView{s: s} }

type busView struct {
	s    *switchBus
	mine []string
}

func (v *busView) Publish(ctx context.Context, topic string, qos byte, retained bool, payload []byte) error {
	v.s.mu.Lock()
	cur := v.s.cur
	v.s.mu.Unlock()
	if cur == nil {
		return mqtt.ErrBusDisconnected
	}
	return cur.Publish(ctx, topic, qos, retained, payload)
}

func (v *busView) Subscribe(filter string, qos byte, handler func(topic string, payload []byte)) error {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	v.s.next++
	key := strconv.Itoa(v.s.next)
	v.s.subs[key] = sub{filter: filter, qos: qos, handler: handler}
	v.mine = append(v.mine, key)
	if v.s.cur != nil {
		return v.s.cur.Subscribe(filter, qos, handler)
	}
	return nil
}

// Close forgets this view's subscriptions. The current inline Bus keeps
// delivering to them until the broker changes; the publisher that closed
// the view ignores what arrives after its Stop.
func (v *busView) Close() error {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	for _, k := range v.mine {
		delete(v.s.subs, k)
	}
	v.mine = nil
	return nil
}
