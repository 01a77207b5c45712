package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/bramble-edge/bramble/mqtt"
)

// byteBus counts desired-topic messages and bytes, leaving out one topic
// (the marker node's).
type byteBus struct {
	skip        string
	msgs, bytes atomic.Int64
	markers     atomic.Int64
}

func (b *byteBus) Publish(_ context.Context, topic string, _ byte, _ bool, payload []byte) error {
	switch {
	case topic == b.skip:
		b.markers.Add(1)
	case strings.HasSuffix(topic, "/desired"):
		b.msgs.Add(1)
		b.bytes.Add(int64(len(payload)))
	}
	return nil
}
func (b *byteBus) Subscribe(string, byte, func(string, []byte)) error { return nil }
func (b *byteBus) Close() error                                       { return nil }

// bigNode is a Node as a real agent's heartbeats make it: images,
// capacity, conditions (what a naive fan-out would send every node).
func bigNode(name string, i int, ready corev1.ConditionStatus) *corev1.Node {
	n := nodeObject(name, fmt.Sprintf("10.42.%d.%d/24", i/256, i%256), ready)
	n.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("4Gi")}
	n.Status.Allocatable = n.Status.Capacity
	for j := range 10 {
		n.Status.Images = append(n.Status.Images, corev1.ContainerImage{Names: []string{fmt.Sprintf("docker.io/library/app-%d:1.0", j)}, SizeBytes: 1 << 20})
	}
	n.Status.NodeInfo = corev1.NodeSystemInfo{Architecture: "arm64", OperatingSystem: "linux", KernelVersion: "6.6.31-v8+", OSImage: "Debian GNU/Linux 12"}
	return n
}

// BenchmarkNodeFanout measures the MQTT bytes a Node write costs in a
// 1,000-node cluster: a heartbeat-driven status change (Ready flips)
// must cost nothing; a route change (podCIDR) goes to every node. The
// naive-bytes/op metric is what sending the whole Node to every node would
// cost, for comparison.
func BenchmarkNodeFanout(b *testing.B) {
	const nodes = 1000
	store := openStore(b)
	w := writer{b, store}
	for i := range nodes {
		putNode(b, store, bigNode(fmt.Sprintf("node-%d", i), i, corev1.ConditionTrue))
	}
	w.configMap("marker", "0")
	w.pod("marker", "marker-node", "marker", "", "a")
	bus := &byteBus{skip: mqtt.DesiredTopic("marker-node")}
	startPublisher(b, store, bus, Config{NodeQueue: 4 * nodes, StallTimeout: time.Hour} /* no acks here */)
	full, _ := json.Marshal(bigNode("node-0", 0, corev1.ConditionFalse))
	flip := 0 // every write differs from the one before, across runs
	for _, mode := range []string{"status-churn", "route-change"} {
		b.Run(mode, func(b *testing.B) {
			bytes0, msgs0 := bus.bytes.Load(), bus.msgs.Load()
			for i := range b.N {
				flip++
				ready, cidr := corev1.ConditionFalse, flip%2
				if flip%2 == 1 {
					ready = corev1.ConditionTrue
				}
				n := bigNode("node-7", 7, ready)
				if mode == "route-change" {
					n.Spec.PodCIDR = fmt.Sprintf("10.99.%d.0/24", cidr)
					n.Spec.PodCIDRs = []string{n.Spec.PodCIDR}
				}
				marks := bus.markers.Load()
				putNode(b, store, n)
				w.configMap("marker", fmt.Sprint(i)) // after the Node write in the one ordered stream
				deadline := time.Now().Add(10 * time.Second)
				for bus.markers.Load() == marks || mode == "route-change" && bus.msgs.Load() < msgs0+int64(i+1)*nodes {
					if time.Now().After(deadline) {
						b.Fatalf("write %d: %d messages, want %d", i, bus.msgs.Load()-msgs0, int64(i+1)*nodes)
					}
					time.Sleep(50 * time.Microsecond)
				}
			}
			b.ReportMetric(float64(bus.bytes.Load()-bytes0)/float64(b.N), "mqtt-bytes/op")
			b.ReportMetric(float64(bus.msgs.Load()-msgs0)/float64(b.N), "msgs/op")
			b.ReportMetric(float64(len(full)*nodes), "naive-bytes/op")
		})
	}
}
