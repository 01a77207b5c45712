package broker

import (
	"sync/atomic"

	"github.com/bramble-edge/bramble/metrics"
)

// Stats returns the broker's counters for /metrics.
func (b *Broker) Stats() metrics.BrokerStats {
	i := b.server.Info
	return metrics.BrokerStats{
		ClientsConnected: atomic.LoadInt64(&i.ClientsConnected),
		MessagesReceived: atomic.LoadInt64(&i.MessagesReceived), MessagesSent: atomic.LoadInt64(&i.MessagesSent),
		BytesReceived: atomic.LoadInt64(&i.BytesReceived), BytesSent: atomic.LoadInt64(&i.BytesSent),
		MessagesDropped: atomic.LoadInt64(&i.MessagesDropped), InflightDropped: atomic.LoadInt64(&i.InflightDropped),
		Inflight: atomic.LoadInt64(&i.Inflight), Subscriptions: atomic.LoadInt64(&i.Subscriptions),
		Retained: atomic.LoadInt64(&i.Retained),
	}
}
