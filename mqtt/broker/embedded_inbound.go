package broker

import (
	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/bramble-edge/bramble/mqtt"
)

// OnPublish hands a node's publish that only the server's own
// subscriptions receive (its heartbeats, acks, pod status, events, RPC
// answers) to those subscriptions from the routes table, and tells mochi
// to skip its own delivery (CodeSuccessIgnore: mochi still acknowledges a
// QoS 1 or 2 publish, and skips only retaining, which is left to mochi
// here, and its subscriber lookup, which built four maps per publish).
// mochi calls it after the publish passed the ACL and the receive quota,
// and after the auth hook's OnPublish; the handlers then run before the
// PUBACK is written instead of after, on the same goroutine. Anything else
// (a retained message, a network subscriber, a shared one) mochi delivers.
//
// The handlers get no client: every inline subscription is an inlineBus's,
// which reads only the topic and payload.
func (h *routeHook) OnPublish(cl *mochi.Client, pk packets.Packet) (packets.Packet, error) {
	if cl.Net.Inline || pk.FixedHeader.Retain || pk.Ignore {
		return pk, nil
	}
	if _, ok := mqtt.NodeOfTopic(pk.TopicName); !ok {
		return pk, nil
	}
	rt := h.routes.lookup(pk.TopicName)
	switch rt.kind {
	case toServer:
		for _, sub := range rt.inline {
			sub.Handler(nil, sub.Subscription, pk)
		}
	case toNobody:
	default:
		return pk, nil
	}
	return pk, errSkipDelivery
}

// errSkipDelivery is mochi's CodeSuccessIgnore as an error, boxed once.
var errSkipDelivery error = packets.CodeSuccessIgnore
