package mqttdelivery

import (
	"context"
	"crypto/tls"
	"errors"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/mqtt"
)

// pahoBus is the server's side of an external broker for this test: a
// paho client with the server's own certificate, resubscribing on every
// connect. (Package mqtt's own paho Bus is being written in parallel; the
// lead runs this test against it and the embedded broker once merged.)
type pahoBus struct {
	c    paho.Client
	mu   sync.Mutex
	subs map[string]subscription
}

type subscription struct {
	qos     byte
	handler func(topic string, payload []byte)
}

var _ mqtt.Bus = (*pahoBus)(nil)

func newPahoBus(broker, clientID string, tlsCfg *tls.Config) *pahoBus {
	b := &pahoBus{subs: map[string]subscription{}}
	o := paho.NewClientOptions().AddBroker(broker).SetClientID(clientID).SetTLSConfig(tlsCfg)
	o.SetCleanSession(true).SetOrderMatters(true).SetAutoReconnect(true).SetConnectRetry(true)
	o.SetConnectRetryInterval(200 * time.Millisecond).SetMaxReconnectInterval(500 * time.Millisecond)
	o.SetKeepAlive(5 * time.Second)
	o.SetOnConnectHandler(b.resubscribe)
	b.c = paho.NewClient(o)
	b.c.Connect()
	return b
}

func (b *pahoBus) resubscribe(c paho.Client) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for filter, s := range b.subs {
		c.Subscribe(filter, s.qos, b.route(s.handler))
	}
}

func (b *pahoBus) route(h func(string, []byte)) paho.MessageHandler {
	return func(_ paho.Client, m paho.Message) { h(m.Topic(), m.Payload()) }
}

// Publish fails at once while the connection is down: paho would keep the
// message for a reconnect that, with a clean session, never resends it.
func (b *pahoBus) Publish(ctx context.Context, topic string, qos byte, retained bool, payload []byte) error {
	if !b.c.IsConnectionOpen() {
		return errors.New("not connected to the broker")
	}
	tok := b.c.Publish(topic, qos, retained, payload)
	select {
	case <-tok.Done():
		return tok.Error()
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b *pahoBus) Subscribe(filter string, qos byte, handler func(topic string, payload []byte)) error {
	b.mu.Lock()
	b.subs[filter] = subscription{qos, handler}
	b.mu.Unlock()
	if b.c.IsConnectionOpen() {
		tok := b.c.Subscribe(filter, qos, b.route(handler))
		tok.WaitTimeout(5 * time.Second)
		return tok.Error()
	}
	return nil // subscribed on connect
}

func (b *pahoBus) Close() error {
	b.c.Disconnect(100)
	return nil
}
