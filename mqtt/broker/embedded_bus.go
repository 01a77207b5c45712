package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/bramble-edge/bramble/mqtt"
)

// inlineBus is the server's Bus on the embedded broker: mochi's inline
// client, in process, exempt from the ACLs. Publish delivers to local
// subscribers on the caller's goroutine and queues to network clients
// without waiting for them; QoS applies to network subscribers (inline
// delivery cannot be lost). Handlers run on the publisher's goroutine and
// get the payload shared with every other receiver: they must neither block
// nor modify it, and Publish callers must not modify a payload once given.
type inlineBus struct {
	broker *Broker

	mu     sync.Mutex
	closed bool
	subs   map[int]string // subscription id -> filter
}

// Bus returns a Bus over the broker's inline client. Each call returns a
// new Bus; Close removes only that Bus's subscriptions.
func (b *Broker) Bus() mqtt.Bus {
	return &inlineBus{broker: b, subs: map[int]string{}}
}

var _ mqtt.Bus = (*inlineBus)(nil)

func (b *inlineBus) Publish(ctx context.Context, topic string, qos byte, retained bool, payload []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("publish %s: %w", topic, err)
	}
	if err := validPublish(topic, qos); err != nil {
		return err
	}
	if b.isClosed() || b.broker.stopped.Load() {
		return fmt.Errorf("publish %s: %w", topic, mqtt.ErrBusClosed)
	}
	if b.broker.publishToNode(topic, qos, retained, payload) {
		return nil
	}
	if err := b.broker.server.Publish(topic, payload, retained, qos); err != nil {
		return fmt.Errorf("publish %s: %w", topic, err)
	}
	return nil
}

var _ mqtt.QueuingBus = (*inlineBus)(nil)

// PublishNeverWaits marks Publish as queueing only: mochi puts a network
// subscriber's copy on that client's outbound channel, or drops it when
// the channel is full, and never blocks on the client.
func (b *inlineBus) PublishNeverWaits() {}

var _ mqtt.SubscriberChecker = (*inlineBus)(nil)

// HasSubscribers reports whether any client's or the server's own
// subscription matches topic now.
func (b *inlineBus) HasSubscribers(topic string) bool {
	s := b.broker.server.Topics.Subscribers(topic)
	return len(s.Subscriptions) > 0 || len(s.Shared) > 0 || len(s.InlineSubscriptions) > 0
}

func (b *inlineBus) Subscribe(filter string, qos byte, handler func(topic string, payload []byte)) error {
	if err := validSubscribe(filter, qos, handler); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return fmt.Errorf("subscribe %q: %w", filter, mqtt.ErrBusClosed)
	}
	id := int(b.broker.subID.Add(1))
	fn := func(_ *mochi.Client, _ packets.Subscription, pk packets.Packet) { handler(pk.TopicName, pk.Payload) }
	if err := b.broker.server.Subscribe(filter, id, fn); err != nil {
		return fmt.Errorf("subscribe %q: %w", filter, err)
	}
	b.subs[id] = filter
	return nil
}

// Close removes this Bus's subscriptions; later calls fail with ErrBusClosed.
func (b *inlineBus) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	var errs []error
	for id, filter := range b.subs {
		if err := b.broker.server.Unsubscribe(filter, id); err != nil {
			errs = append(errs, fmt.Errorf("unsubscribe %q: %w", filter, err))
		}
	}
	b.subs = nil
	return errors.Join(errs...)
}

func (b *inlineBus) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// validPublish checks what mochi does not check for the inline client.
func validPublish(topic string, qos byte) error {
	switch {
	case topic == "":
		return errors.New("publish: empty topic")
	case strings.ContainsAny(topic, "+#\x00"):
		return fmt.Errorf("publish %q: a topic name must not hold wildcards or NUL", topic)
	case strings.HasPrefix(topic, "$"):
		return fmt.Errorf("publish %q: topics starting with $ are the broker's", topic)
	case qos > 2:
		return fmt.Errorf("publish %s: qos %d: must be 0, 1 or 2", topic, qos)
	}
	return nil
}

// validFilter checks a subscription filter: not empty, no NUL, wildcards
// only as whole levels, # only last.
func validFilter(filter string) error {
	if filter == "" || strings.ContainsRune(filter, 0) {
		return fmt.Errorf("subscribe %q: not a valid topic filter", filter)
	}
	levels := strings.Split(filter, "/")
	for i, l := range levels {
		if (strings.ContainsAny(l, "+#") && len(l) != 1) || (l == "#" && i != len(levels)-1) {
			return fmt.Errorf("subscribe %q: level %q: wildcards must fill a level, and # must be last", filter, l)
		}
	}
	return nil
}

// validSubscribe checks what every Bus's Subscribe is given.
func validSubscribe(filter string, qos byte, handler func(topic string, payload []byte)) error {
	if handler == nil {
		return fmt.Errorf("subscribe %q: handler is nil", filter)
	}
	if qos > 2 {
		return fmt.Errorf("subscribe %q: qos %d: must be 0, 1 or 2", filter, qos)
	}
	return validFilter(filter)
}
