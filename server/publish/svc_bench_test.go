package publish

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// benchSlice is a slice of service svc with n endpoints as the controller
// writes them (targetRef, zone, nodeName); endpoint 0's readiness is ready.
func benchSlice(svc string, n int, ready bool) *discoveryv1.EndpointSlice {
	addrs := make([]string, n)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("10.42.%d.%d", i/200, 10+i%200)
	}
	s := slice(svc+"-1", svc, addrs...)
	s.Endpoints[0].Conditions.Ready = &ready
	return s
}

// BenchmarkServiceFanout measures the MQTT bytes one endpoint change (an
// endpoint's readiness flipping) costs in a 1,000-node cluster where every
// node routes, for a slice of 10 and one of 100 endpoints. Every routed
// node gets the reduced slice (the simple design): bytes-per-node is what
// a node running no pod of the Service pays. naive-bytes/op is the stored
// slice sent to every node, for comparison.
func BenchmarkServiceFanout(b *testing.B) {
	const nodes = 1000
	store := openStore(b)
	w := writer{b, store}
	for i := range nodes {
		putNode(b, store, bigNode(fmt.Sprintf("node-%d", i), i, corev1.ConditionTrue))
	}
	for _, n := range []int{10, 100} {
		svc := fmt.Sprintf("svc%d", n)
		putObj(b, store, svcKey(mqtt.ResourceServices, svc), service(svc, fmt.Sprintf("10.43.1.%d", n), "a"))
		putObj(b, store, svcKey(mqtt.ResourceEndpointSlices, svc+"-1"), benchSlice(svc, n, true))
	}
	w.configMap("marker", "0")
	w.pod("marker", "marker-node", "marker", "", "a")
	bus := &byteBus{skip: mqtt.DesiredTopic("marker-node")}
	startPublisher(b, store, bus, Config{NodeQueue: 4 * nodes, StallTimeout: time.Hour} /* no acks here */)
	ready := map[int]bool{10: true, 100: true} // as loaded
	for _, n := range []int{10, 100} {
		svc := fmt.Sprintf("svc%d", n)
		b.Run(fmt.Sprintf("endpoints-%d", n), func(b *testing.B) {
			bytes0, msgs0 := bus.bytes.Load(), bus.msgs.Load()
			for i := range b.N {
				ready[n] = !ready[n] // every write differs from the one before, across runs
				marks := bus.markers.Load()
				putObj(b, store, svcKey(mqtt.ResourceEndpointSlices, svc+"-1"), benchSlice(svc, n, ready[n]))
				w.configMap("marker", fmt.Sprint(i)) // after the slice write in the one ordered stream
				deadline := time.Now().Add(10 * time.Second)
				for bus.markers.Load() == marks || bus.msgs.Load() < msgs0+int64(i+1)*nodes {
					if time.Now().After(deadline) {
						b.Fatalf("write %d: %d messages, want %d", i, bus.msgs.Load()-msgs0, int64(i+1)*nodes)
					}
					time.Sleep(50 * time.Microsecond)
				}
			}
			perOp := float64(bus.bytes.Load()-bytes0) / float64(b.N)
			stored, _ := json.Marshal(benchSlice(svc, n, ready[n]))
			b.ReportMetric(perOp, "mqtt-bytes/op")
			b.ReportMetric(perOp/nodes, "bytes-per-node")
			b.ReportMetric(float64(bus.msgs.Load()-msgs0)/float64(b.N), "msgs/op")
			b.ReportMetric(float64(len(stored)*nodes), "naive-bytes/op")
		})
	}
}
