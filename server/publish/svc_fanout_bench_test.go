package publish

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// BenchmarkServiceFanout measures the MQTT bytes one endpoint change costs
// in a 1,000-node cluster where every node routes, for a Service of 10 and
// one of 100 endpoints on 10 nodes (node-0..node-9): "readiness" flips an
// endpoint's readiness (the counts change: every node gets the summary),
// "restart" moves an endpoint to a new address on the same node (only the
// hosting nodes hear of it). bytes-per-other-node is what a node running
// no pod of the Service pays; naive-bytes/op is the stored slice sent to
// every node, for comparison.
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
		putObj(b, store, svcKey(mqtt.ResourceEndpointSlices, svc+"-1"), benchSlice(svc, n, true, false))
	}
	w.configMap("marker", "0")
	w.pod("marker", "marker-node", "marker", "", "a")
	bus := &hostBus{marker: mqtt.DesiredTopic("marker-node")}
	startPublisher(b, store, bus, Config{NodeQueue: 4 * nodes, StallTimeout: time.Hour} /* no acks here */)
	for _, n := range []int{10, 100} {
		svc := fmt.Sprintf("svc%d", n)
		ready, alt := true, false // as loaded
		for _, op := range []string{"readiness", "restart"} {
			b.Run(fmt.Sprintf("endpoints-%d/%s", n, op), func(b *testing.B) {
				host0, other0, others0 := bus.hostBytes.Load(), bus.otherBytes.Load(), bus.otherMsgs.Load()
				for i := range b.N {
					want := hostingNodes(n, ready) // messages per write: the hosts get the slice
					if op == "readiness" {
						want = nodes // and everyone the summary
						ready = !ready
					} else {
						alt = !alt
					}
					marks, msgs := bus.marked.Load(), bus.msgs.Load()
					putObj(b, store, svcKey(mqtt.ResourceEndpointSlices, svc+"-1"), benchSlice(svc, n, ready, alt))
					w.configMap("marker", fmt.Sprint(i))
					deadline := time.Now().Add(10 * time.Second)
					for bus.marked.Load() == marks || bus.msgs.Load() < msgs+want {
						if time.Now().After(deadline) {
							b.Fatalf("write %d: %d messages, want %d", i, bus.msgs.Load()-msgs, want)
						}
						time.Sleep(50 * time.Microsecond)
					}
				}
				stored, _ := json.Marshal(benchSlice(svc, n, ready, alt))
				per := float64(b.N)
				b.ReportMetric(float64(bus.otherBytes.Load()-other0)/per/(nodes-benchHosts), "bytes-per-other-node")
				b.ReportMetric(float64(bus.hostBytes.Load()-host0)/per/benchHosts, "bytes-per-host")
				b.ReportMetric(float64(bus.otherMsgs.Load()-others0)/per, "other-msgs/op")
				b.ReportMetric(float64(bus.hostBytes.Load()-host0+bus.otherBytes.Load()-other0)/per, "mqtt-bytes/op")
				b.ReportMetric(float64(len(stored)*nodes), "naive-bytes/op")
			})
		}
	}
}

// hostingNodes is how many nodes host a ready endpoint of the benchmark's
// Service of n endpoints (endpoint 0, on node-0, is ready or not).
func hostingNodes(n int, ready bool) int64 {
	if n == benchHosts && !ready {
		return benchHosts - 1
	}
	return benchHosts
}
