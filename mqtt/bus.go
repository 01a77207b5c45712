package mqtt

import (
	"context"
	"errors"
)

// Bus is how the server publishes and subscribes, whether the broker is
// embedded (mochi's inline client, no network hop) or external (a paho
// client holding the server's own certificate). Handlers must not block:
// they run on the client's delivery path.
type Bus interface {
	Publish(ctx context.Context, topic string, qos byte, retained bool, payload []byte) error
	Subscribe(filter string, qos byte, handler func(topic string, payload []byte)) error
	Close() error
}

// SubscriberChecker is a Bus that can tell whether a subscription matches
// a topic right now: the embedded broker can, an external one cannot. A
// publisher of best-effort messages (the watch topics) may leave out those
// nobody would receive, and save encoding them; a subscription made just
// after the check misses that message, as it would have missed an earlier
// one.
type SubscriberChecker interface {
	HasSubscribers(topic string) bool
}

// QueuingBus is a Bus whose Publish hands the message to the broker's
// per-client queues and returns, never waiting on the network or a peer
// (the embedded broker's inline client). A publisher need not bound such a
// Publish with a timeout of its own; one that waits for a broker's PUBACK
// (an external broker) is not a QueuingBus.
type QueuingBus interface {
	PublishNeverWaits()
}

// ErrBusClosed is returned by a Bus used after Close.
var ErrBusClosed = errors.New("mqtt bus closed")

// ErrBusDisconnected: an external broker is not connected right now; the
// bus reconnects by itself.
var ErrBusDisconnected = errors.New("mqtt bus not connected to the broker")
