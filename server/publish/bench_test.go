package publish

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// countingBus counts desired-topic publishes and drops them. Like the
// embedded broker's Bus it returns at once (mqtt.QueuingBus).
type countingBus struct{ desired atomic.Int64 }

func (b *countingBus) PublishNeverWaits() {}

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

var (
	_ mqtt.Bus        = (*countingBus)(nil)
	_ mqtt.QueuingBus = (*countingBus)(nil)
)

// BenchmarkNodeViewAmong30000Pods measures one node's relist (View) with
// 30,000 pods on the server, 100 on each of 300 nodes, each pod mounting
// its node's ConfigMap: the whole view (100 pods read by key at the
// index's revision, and the ConfigMap), and the changes since a revision
// 300 pod writes back (one to the node's pods: that pod and, as a
// catch-up does, the ConfigMap its versions name).
func BenchmarkNodeViewAmong30000Pods(b *testing.B) {
	const nodes, perNode = 300, 100
	store := openStore(b)
	w := writer{b, store}
	var wg sync.WaitGroup
	for n := range nodes {
		w.configMap(fmt.Sprintf("conf-%d", n), "1")
	}
	for g := range 32 { // writers in parallel: the datastore commits them in groups
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < nodes*perNode; i += 32 {
				n := i % nodes
				w.pod(fmt.Sprintf("p-%d", i), fmt.Sprintf("node-%d", n), fmt.Sprintf("conf-%d", n), "", "a")
			}
		}()
	}
	wg.Wait()
	p := startPublisher(b, store, &countingBus{}, Config{})
	since, err := store.CurrentRevision(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 300 {
		w.pod(fmt.Sprintf("p-%d", i), fmt.Sprintf("node-%d", i%nodes), fmt.Sprintf("conf-%d", i%nodes), "", "b")
	}
	processedUpTo(b, p, since+300)
	// What the pod list of the older relist costs the server before any
	// HTTP: every pod read and decoded to find the node's 100.
	b.Run("list-all-pods-and-decode", func(b *testing.B) {
		for range b.N {
			page, err := store.List(context.Background(), registryPrefix+"core/pods/", datastore.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			mine := 0
			for _, kv := range page.Items {
				pod, err := decodePod(kv)
				if err != nil {
					b.Fatal(err)
				}
				if pod.Spec.NodeName == "node-7" {
					mine++
				}
			}
			if mine != perNode {
				b.Fatalf("pods of node-7: got %d, want %d", mine, perNode)
			}
		}
	})
	for _, c := range []struct {
		name  string
		since int64
		want  int
	}{{"whole", 0, perNode + 1}, {"since", since, 2}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				v, err := p.View(context.Background(), "node-7", c.since)
				if err != nil || len(v.Changes) != c.want {
					b.Fatalf("view: got %d changes, %v; want %d", len(v.Changes), err, c.want)
				}
			}
		})
	}
}
