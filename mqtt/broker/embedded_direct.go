package broker

import (
	"sync/atomic"
	"time"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/bramble-edge/bramble/mqtt"
)

// publishToNode delivers a server publish on a node's topic (its desired
// events, its RPC requests) without mochi's per-publish subscriber lookup
// and packet copies, through mochi's exported per-client API. It does what
// mochi's inline Publish does for a topic exactly one MQTT 3.1.1 client
// subscribes to (the node's own session: the ACLs let no one else read
// below a node's subtree): the ACL check of the delivery, the QoS the
// subscription allows, a packet ID and an in-flight entry in that client's
// session for QoS 1 and 2 (kept while the node is offline, resent when it
// reconnects, dropped at the same in-flight limit), then the write. It
// reports false when mochi must deliver the message instead: a retained
// message, any other subscriber (the server's own, another client's), an
// MQTT 5 client (subscription identifiers, topic aliases, send quotas).
//
// The packet's write is the client's WritePacket on the caller's goroutine
// rather than mochi's per-client channel: it only queues on the
// brokerConn, which never blocks, so the order of one topic's messages is
// the order of the calls.
func (b *Broker) publishToNode(topic string, qos byte, retained bool, payload []byte) bool {
	if retained {
		return false
	}
	if _, ok := mqtt.NodeOfTopic(topic); !ok {
		return false
	}
	rt := b.routes.lookup(topic)
	switch rt.kind {
	case viaMochi, toServer:
		return false
	case toNobody:
		b.countInjected()
		return true
	}
	cl, ok := b.server.Clients.Get(rt.client)
	if !ok || cl.Properties.ProtocolVersion >= 5 {
		return false
	}
	b.countInjected()
	b.deliverTo(cl, topic, min(qos, rt.qos, b.server.Options.Capabilities.MaximumQos), payload)
	return true
}

// countInjected counts the publish as mochi's InjectPacket does.
func (b *Broker) countInjected() {
	atomic.AddInt64(&b.server.Info.PacketsReceived, 1)
	atomic.AddInt64(&b.server.Info.MessagesReceived, 1)
}

// deliverTo is mochi's publishToClient for an MQTT 3.1.1 client and a
// message from the inline client. The payload is shared, not copied: Bus
// callers never modify a payload once given.
func (b *Broker) deliverTo(cl *mochi.Client, topic string, qos byte, payload []byte) {
	if !b.hook.OnACLCheck(cl, topic, false) {
		return
	}
	out := packets.Packet{
		FixedHeader: packets.FixedHeader{Type: packets.Publish, Qos: qos},
		TopicName:   topic,
		Payload:     payload,
		Origin:      mochi.InlineClientId,
		Created:     time.Now().Unix(),
	}
	if qos > 0 && !b.holdInflight(cl, &out) {
		return
	}
	if cl.Net.Conn == nil || cl.Closed() {
		return // in flight in the session: resent when the client reconnects
	}
	if err := cl.WritePacket(out); err != nil {
		b.server.Log.Debug("failed publishing packet", "error", err, "client", cl.ID, "topic", topic)
	}
}

// holdInflight gives out the client's next packet ID and keeps it in the
// client's session until acknowledged; false when the client holds as many
// unacknowledged messages as it may, or no packet ID is free (the message
// is dropped, as mochi drops it).
func (b *Broker) holdInflight(cl *mochi.Client, out *packets.Packet) bool {
	info := b.server.Info
	if cl.State.Inflight.Len() >= int(b.server.Options.Capabilities.MaximumInflight) {
		atomic.AddInt64(&info.InflightDropped, 1)
		b.server.Log.Warn("client store quota reached", "client", cl.ID, "listener", cl.Net.Listener)
		return false
	}
	id, err := cl.NextPacketID()
	if err != nil {
		atomic.AddInt64(&info.InflightDropped, 1)
		b.server.Log.Warn("packet ids exhausted", "error", err, "client", cl.ID, "listener", cl.Net.Listener)
		return false
	}
	out.PacketID = uint16(id)
	if cl.State.Inflight.Set(*out) {
		atomic.AddInt64(&info.Inflight, 1)
		b.hook.OnQosPublish(cl, *out, out.Created, 0)
		cl.State.Inflight.DecreaseSendQuota()
	}
	return true
}
