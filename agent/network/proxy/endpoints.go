package proxy

import (
	"net/netip"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// slicesByService groups slices by their "namespace/service" label.
func slicesByService(slices []*discoveryv1.EndpointSlice) map[string][]*discoveryv1.EndpointSlice {
	out := map[string][]*discoveryv1.EndpointSlice{}
	for _, s := range slices {
		svc := s.Labels[discoveryv1.LabelServiceName]
		if svc == "" || s.AddressType != discoveryv1.AddressTypeIPv4 {
			continue
		}
		key := s.Namespace + "/" + svc
		out[key] = append(out[key], s)
	}
	return out
}

// endpoints picks the service port's endpoints from its slices: all and
// the node's own. Ready ones (or all with publishNotReadyAddresses); when
// none is ready, serving terminating ones (as upstream, so a rolling
// update does not refuse connections). The port comes from the slice's
// port of the same name and protocol, which the slice controller resolved
// per pod (a named targetPort may be a different number on each pod).
func endpoints(node string, svc *corev1.Service, sp *corev1.ServicePort, slices []*discoveryv1.EndpointSlice) (all, local []Endpoint) {
	var ready, serving candidates
	for _, s := range slices {
		port, ok := slicePort(s, sp)
		if !ok {
			continue
		}
		for i := range s.Endpoints {
			e := &s.Endpoints[i]
			isLocal := e.NodeName != nil && *e.NodeName == node
			switch {
			case svc.Spec.PublishNotReadyAddresses || isTrue(e.Conditions.Ready, true):
				ready.add(e, port, isLocal)
			case isTrue(e.Conditions.Serving, false) && isTrue(e.Conditions.Terminating, false):
				serving.add(e, port, isLocal)
			}
		}
	}
	if len(ready.all) == 0 {
		ready = serving
	}
	return ready.sorted()
}

func slicePort(s *discoveryv1.EndpointSlice, sp *corev1.ServicePort) (uint16, bool) {
	for _, p := range s.Ports {
		name, proto := "", corev1.ProtocolTCP
		if p.Name != nil {
			name = *p.Name
		}
		if p.Protocol != nil {
			proto = *p.Protocol
		}
		if name == sp.Name && proto == protocolOr(sp.Protocol) && p.Port != nil && *p.Port > 0 && *p.Port < 65536 {
			return uint16(*p.Port), true
		}
	}
	return 0, false
}

func protocolOr(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}

func isTrue(b *bool, unset bool) bool {
	if b == nil {
		return unset
	}
	return *b
}

// candidates collects endpoints without duplicates (an address may be in
// two slices while the controller moves it).
type candidates struct {
	all, local []Endpoint
	seen       map[Endpoint]bool
}

func (c *candidates) add(e *discoveryv1.Endpoint, port uint16, isLocal bool) {
	for _, a := range e.Addresses {
		ip, err := netip.ParseAddr(a)
		if err != nil || !ip.Is4() {
			continue
		}
		ep := Endpoint{IP: ip, Port: port}
		if c.seen == nil {
			c.seen = map[Endpoint]bool{}
		}
		if c.seen[ep] {
			continue
		}
		c.seen[ep] = true
		c.all = append(c.all, ep)
		if isLocal {
			c.local = append(c.local, ep)
		}
	}
}

func (c candidates) sorted() ([]Endpoint, []Endpoint) {
	for _, l := range [][]Endpoint{c.all, c.local} {
		sort.Slice(l, func(i, j int) bool {
			if l[i].IP != l[j].IP {
				return l[i].IP.Less(l[j].IP)
			}
			return l[i].Port < l[j].Port
		})
	}
	return c.all, c.local
}
