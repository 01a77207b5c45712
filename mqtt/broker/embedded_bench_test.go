package broker_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
)

// BenchmarkEmbeddedFanout: one message from the server's Bus to n TLS
// subscribers (QoS 1), per op until every subscriber has it.
func BenchmarkEmbeddedFanout(b *testing.B) {
	for _, n := range []int{1, 100, 500} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) { benchFanout(b, n) })
	}
}

func benchFanout(b *testing.B, n int) {
	env := newEmbedded(b, nil)
	var got atomic.Int64
	var wg sync.WaitGroup
	topic := mqtt.WatchTopic("configmaps", "default", "cm")
	for i := range n {
		name := fmt.Sprintf("viewer-%d", i)
		o := pahoOptions(env.addr, name, clientTLS(env.ca.CAPool(), ptr(env.ca.clientCert(b, name, broker.ViewerGroup))), nil)
		o.SetDefaultPublishHandler(func(paho.Client, paho.Message) {
			got.Add(1)
			wg.Done()
		})
		subscribe(b, mustDial(b, o), mqtt.WatchPrefix+"#")
	}
	payload := make([]byte, 512)
	b.ResetTimer()
	for range b.N {
		wg.Add(n)
		if err := env.bus.Publish(b.Context(), topic, 1, false, payload); err != nil {
			b.Fatal(err)
		}
		wg.Wait()
	}
	b.ReportMetric(float64(got.Load())/b.Elapsed().Seconds(), "deliveries/s")
}

func BenchmarkEmbeddedNodeRoundTrip(b *testing.B) {
	env := newEmbedded(b, nil)
	done := make(chan struct{}, 1)
	o := pahoOptions(env.addr, "pi-1", clientTLS(env.ca.CAPool(), ptr(env.addNode(b, "pi-1"))), nil)
	o.SetDefaultPublishHandler(func(paho.Client, paho.Message) { done <- struct{}{} })
	subscribe(b, mustDial(b, o), mqtt.NodeSubtree("pi-1")+"#")
	payload := make([]byte, 2048)
	b.ResetTimer()
	for range b.N {
		if err := env.bus.Publish(b.Context(), mqtt.DesiredTopic("pi-1"), 1, false, payload); err != nil {
			b.Fatal(err)
		}
		<-done
	}
}
