package publish

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// countingBus counts desired-topic publishes and drops them.
type countingBus struct{ desired atomic.Int64 }

func (b *countingBus) Publish(_ context.Context, topic string, _ byte, _ bool, _ []byte) error {
	if strings.HasSuffix(topic, "/desired") {
		b.desired.Add(1)
	}
	return nil
}
func (b *countingBus) Subscribe(string, byte, func(string, []byte)) error { return nil }
func (b *countingBus) Close() error                                       { return nil }

// BenchmarkConfigMapToThousandNodes measures the server's share of "one
// ConfigMap update delivered to 1,000 nodes": from the datastore write
// returning to the 1,000th desired event handed to the Bus (index
// fan-out, encoding, per-node outboxes), with a Bus that costs nothing.
func BenchmarkConfigMapToThousandNodes(b *testing.B) {
	const nodes = 1000
	store := openStore(b)
	w := writer{b, store}
	w.configMap("shared", "0")
	for i := range nodes {
		w.pod(fmt.Sprintf("p-%d", i), fmt.Sprintf("node-%d", i), "shared", "", "a")
	}
	bus := &countingBus{}
	startPublisher(b, store, bus, Config{})
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		before := bus.desired.Load()
		start := time.Now()
		w.configMap("shared", fmt.Sprint(i+1))
		for bus.desired.Load() < before+nodes {
			time.Sleep(50 * time.Microsecond)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	b.ReportMetric(float64(sorted[len(sorted)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(sorted[len(sorted)*99/100].Microseconds())/1000, "p99-ms")
}

var _ mqtt.Bus = (*countingBus)(nil)
