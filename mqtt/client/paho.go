package client

import (
	"crypto/tls"
	"fmt"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/metrics"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/pahostore"
)

// Presence payloads: retained on the node's presence topic.
const (
	presenceOnline  = "online"
	presenceOffline = "offline"
)

// options configures paho: mutual TLS, the node name as client ID, a
// persistent session (clean session off) so the broker keeps QoS 1
// messages while the node is away, in-order delivery to one handler that
// never blocks, and a retained "offline" Last Will.
func (c *Client) options(tlsCfg *tls.Config) *paho.ClientOptions {
	o := paho.NewClientOptions()
	for _, b := range c.cfg.Brokers {
		o.AddBroker(b)
	}
	o.SetClientID(c.node).SetTLSConfig(tlsCfg).SetCleanSession(false).SetOrderMatters(true).SetStore(pahostore.New())
	o.SetAutoReconnect(true).SetConnectRetry(true).SetConnectRetryInterval(time.Second)
	o.SetMaxReconnectInterval(c.cfg.MaxReconnectInterval).SetKeepAlive(c.cfg.KeepAlive)
	o.SetPingTimeout(min(c.cfg.KeepAlive, 10*time.Second)).SetConnectTimeout(10 * time.Second)
	o.SetWill(mqtt.PresenceTopic(c.node), presenceOffline, 1, true)
	c.verifyBrokerWithRoots(o)
	o.SetDefaultPublishHandler(c.onMessage)
	o.SetOnConnectHandler(c.onConnect)
	o.SetConnectionLostHandler(func(_ paho.Client, err error) {
		metrics.AgentMQTTConnectionLost.Inc()
		c.log.Info("MQTT connection lost; reconnecting", "err", err)
	})
	return o
}

// onConnect runs (in its own goroutine) after every connect and
// reconnect: subscribe again (the broker may have lost the session),
// announce presence, and let the stream say hello.
func (c *Client) onConnect(pc paho.Client) {
	for !c.subscribe(pc) {
		if !pc.IsConnectionOpen() {
			return // the next connect calls onConnect again
		}
		time.Sleep(time.Second)
	}
	pc.Publish(mqtt.PresenceTopic(c.node), 1, true, presenceOnline)
	metrics.AgentMQTTConnects.Inc()
	c.log.Debug("MQTT connected and subscribed")
	c.q.push(item{connected: true})
	if c.cfg.OnConnect != nil {
		c.cfg.OnConnect()
	}
}

func (c *Client) subscribe(pc paho.Client) bool {
	if !c.subscribeTo(pc, mqtt.DesiredTopic(c.node)) {
		return false
	}
	return c.cfg.OnRPC == nil || c.subscribeTo(pc, mqtt.RPCRequestTopic(c.node))
}

func (c *Client) subscribeTo(pc paho.Client, topic string) bool {
	tok := pc.Subscribe(topic, 1, c.onMessage)
	var err error
	switch {
	case !tok.WaitTimeout(10 * time.Second):
		err = fmt.Errorf("no SUBACK within 10s")
	case tok.Error() != nil:
		err = tok.Error()
	case tok.(*paho.SubscribeToken).Result()[topic] == 0x80:
		err = fmt.Errorf("the broker refused the subscription")
	}
	if err != nil {
		c.log.Warn("subscribe failed", "topic", topic, "err", err)
		return false
	}
	return true
}

// onMessage runs on paho's delivery goroutine: decode, time, queue. It
// never blocks, so the network loop (and PUBACKs) keep flowing whatever
// the Applier does.
func (c *Client) onMessage(_ paho.Client, m paho.Message) {
	if c.cfg.OnRPC != nil && m.Topic() == mqtt.RPCRequestTopic(c.node) {
		c.cfg.OnRPC(c, m.Topic(), m.Payload())
		return
	}
	if m.Topic() != mqtt.DesiredTopic(c.node) {
		return
	}
	ev, err := mqtt.DecodeEvent(m.Payload())
	if err != nil {
		c.log.Warn("dropping a desired event that does not decode", "err", err)
		return
	}
	if c.cfg.OnReceive != nil {
		c.cfg.OnReceive(ev, time.Now())
	}
	c.q.push(item{ev: ev})
}

func (c *Client) connected() bool { return c.mqtt.IsConnectionOpen() }

// sendAck sends a HELLO at once, at QoS 1: it is how the server learns
// where a (re)connected node stands. An ACK waits in the acker (see there)
// and goes at QoS 0, one TLS record instead of two: acks only feed the
// server's stall watch, which takes a lost one for a node that fell
// behind and sends a catch-up the stream de-duplicates, and a newer ack
// supersedes it (e2e/mqttdelivery TestDeliveryWithLostAcks).
func (c *Client) sendAck(t mqtt.AckType, rev int64) {
	if t == mqtt.AckHello {
		c.acks.drop()
		c.publishAck(t, rev, 1)
		return
	}
	c.acks.add(rev)
}

func (c *Client) publishAck(t mqtt.AckType, rev int64, qos byte) {
	payload, err := mqtt.Ack{Type: t, Rev: rev}.Encode()
	if err != nil {
		c.log.Error("cannot encode ack", "err", err)
		return
	}
	c.mqtt.Publish(mqtt.AckTopic(c.node), qos, false, payload)
}
