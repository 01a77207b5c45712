package publish

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// benchHosts is how many nodes run the benchmark Services' endpoints.
const benchHosts = 10

// benchSlice is a slice of service svc with n endpoints as the controller
// writes them (targetRef, zone, nodeName), spread over node-0..node-9;
// endpoint 0 is ready or not, and at address variant alt when set.
func benchSlice(svc string, n int, ready, alt bool) *discoveryv1.EndpointSlice {
	addrs := make([]string, n)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("10.42.%d.%d", i%benchHosts, 10+i/benchHosts)
	}
	if alt {
		addrs[0] = "10.42.0.250"
	}
	s := slice(svc+"-1", svc, addrs...)
	for i := range s.Endpoints {
		node := fmt.Sprintf("node-%d", i%benchHosts)
		s.Endpoints[i].NodeName = &node
	}
	s.Endpoints[0].Conditions.Ready = &ready
	return s
}

// hostBus counts what the publisher hands the Bus on the desired topics of
// the hosting nodes and of the others; marker is a node's topic the
// benchmark uses to know the publisher is past its write.
type hostBus struct {
	marker                  string
	hostBytes, otherBytes   atomic.Int64
	msgs, otherMsgs, marked atomic.Int64
}

func (b *hostBus) Publish(_ context.Context, topic string, _ byte, _ bool, payload []byte) error {
	switch {
	case topic == b.marker:
		b.marked.Add(1)
	case !strings.HasSuffix(topic, "/desired"):
	case isBenchHost(topic):
		b.msgs.Add(1)
		b.hostBytes.Add(int64(len(payload)))
	default:
		b.msgs.Add(1)
		b.otherMsgs.Add(1)
		b.otherBytes.Add(int64(len(payload)))
	}
	return nil
}

func isBenchHost(topic string) bool {
	for i := range benchHosts {
		if topic == mqtt.DesiredTopic(fmt.Sprintf("node-%d", i)) {
			return true
		}
	}
	return false
}

func (b *hostBus) Subscribe(string, byte, func(string, []byte)) error { return nil }
func (b *hostBus) Close() error                                       { return nil }
