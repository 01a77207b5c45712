package agent

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

	"github.com/bramble-edge/bramble/agent/network/proxy"
	"github.com/bramble-edge/bramble/mqtt"
)

// Resources the service proxy reads from the local store (docs/SERVICES.md).
const (
	resourceServices       = "services"
	resourceEndpointSlices = "endpointslices"
)

// servicesChanged says whether a stored change concerns the service proxy.
func servicesChanged(resource string) bool {
	return resource == resourceServices || resource == resourceEndpointSlices ||
		resource == mqtt.ResourceServiceSummaries
}

// syncServices programs the service proxy from the Services and
// EndpointSlices of the local store (so it works offline), in one nftables
// transaction, skipped when nothing changed. A stored object that does not
// decode is logged and left out. No Service stored: no svc-* rules at all.
func (n *network) syncServices() error {
	if n.svc == nil {
		a, err := proxy.NewApplier(-1)
		if err != nil {
			return err
		}
		n.svc = a
	}
	in := proxy.Input{Node: n.node}
	if ip, ok := netip.AddrFromSlice(n.nodeIP.To4()); ok {
		in.NodeIPs = []netip.Addr{ip}
	}
	if ip, ok := netip.AddrFromSlice(n.cluster.IP.To4()); ok {
		ones, _ := n.cluster.Mask.Size()
		in.ClusterCIDR = netip.PrefixFrom(ip, ones)
	}
	if n.own != nil {
		if ip, ok := netip.AddrFromSlice(n.own.IP.Mask(n.own.Mask).To4()); ok {
			in.RelayIP = ip // the relay address: the overlay device's (docs/SERVICES.md)
		}
	}
	errs := proxy.Decode(&in, storedJSON(n.store, resourceServices), storedJSON(n.store, resourceEndpointSlices))
	errs = append(errs, decodeSummaries(&in, n.store)...)
	if len(errs) > 0 {
		n.log.Warn("stored services or endpoint slices left out of the service proxy", "node", n.node, "err", errors.Join(errs...))
	}
	_, err := n.svc.Apply(context.Background(), proxy.Compile(in))
	return err
}

// decodeSummaries adds the stored Service summaries (the relay design:
// Services this node reaches through other nodes' relays), checked as the
// wire's decoder checks them; a bad one is left out and reported.
func decodeSummaries(in *proxy.Input, s *Store) []error {
	var errs []error
	for ref, raw := range s.List(mqtt.ResourceServiceSummaries) {
		sum, err := mqtt.DecodeServiceSummary(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("stored %s: %w", ref, err))
			continue
		}
		in.Summaries = append(in.Summaries, sum)
	}
	return errs
}

// storedJSON lists one resource of the store by "namespace/name".
func storedJSON(s *Store, resource string) map[string][]byte {
	out := map[string][]byte{}
	for ref, raw := range s.List(resource) {
		out[ref.Namespace+"/"+ref.Name] = raw
	}
	return out
}
