package publish

import (
	"encoding/json"
	"hash/fnv"
	"net/netip"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// The relay half of the Service fan-out (docs/SERVICES.md, "Endpoints
// only where they run"): a Service's EndpointSlices go only to the nodes
// hosting its endpoints, and every routed node gets its summary
// (mqtt.ServiceSummary: hosting nodes, their relay addresses and counts,
// the relay ports). A Service whose endpoints cannot be relayed (headless:
// DNS answers their addresses on every node; an endpoint without a node,
// as the kubernetes Service's; a host without a pod CIDR; no relay port
// left) has its slices sent everywhere, as before, and no summary.

// Relay ports come from their own range, away from NodePorts
// (30000-32767); they are opened only on the relay address (the first
// address of a hosting node's pod CIDR), to sources in the cluster CIDR.
const (
	RelayPortBase = 33000
	RelayPortSize = 7000
)

// svcState is what the index knows of one Service "namespace/name".
type svcState struct {
	svc    *corev1.Service
	slices map[mqtt.ObjectRef]*sliceCounts
	relays []mqtt.RelayPort
}

// sliceCounts are a slice's endpoints per node: ready ones (all with
// publishNotReadyAddresses) and serving terminating ones; unhosted says
// an endpoint names no node.
type sliceCounts struct {
	ready, serving, all map[string]int32
	unhosted            bool
}

// relayIndex holds every Service's state and the relay ports in use.
type relayIndex struct {
	states   map[string]*svcState
	sliceSvc map[mqtt.ObjectRef]string
	used     map[int32]string
}

func newRelayIndex() *relayIndex {
	return &relayIndex{states: map[string]*svcState{}, sliceSvc: map[mqtt.ObjectRef]string{}, used: map[int32]string{}}
}

func (r *relayIndex) state(key string) *svcState {
	st := r.states[key]
	if st == nil {
		st = &svcState{slices: map[mqtt.ObjectRef]*sliceCounts{}}
		r.states[key] = st
	}
	return st
}

// drop forgets a state left with neither Service nor slice.
func (r *relayIndex) drop(key string) {
	if st := r.states[key]; st != nil && st.svc == nil && len(st.slices) == 0 {
		delete(r.states, key)
	}
}

// setService records a Service (nil: deleted), keeping or allocating one
// relay port per service port and freeing those it no longer has.
func (r *relayIndex) setService(key string, svc *corev1.Service) {
	st := r.state(key)
	st.svc = svc
	old := st.relays
	st.relays = nil
	if svc != nil && relayable(svc) {
		for _, p := range svc.Spec.Ports {
			proto := string(p.Protocol)
			if proto == "" {
				proto = string(corev1.ProtocolTCP)
			}
			port := r.keep(old, key, p.Name, proto)
			if port == 0 {
				st.relays = nil // out of ports: no summary, slices everywhere
				break
			}
			st.relays = append(st.relays, mqtt.RelayPort{Port: p.Name, Protocol: proto, Relay: port})
		}
	}
	for _, o := range old {
		if !hasRelay(st.relays, o.Relay) {
			delete(r.used, o.Relay)
		}
	}
	r.drop(key)
}

// keep returns the port old gave (name, proto), else a free one: the
// first free from a hash of the key, so a restart mostly finds the same.
func (r *relayIndex) keep(old []mqtt.RelayPort, key, name, proto string) int32 {
	for _, o := range old {
		if o.Port == name && o.Protocol == proto {
			return o.Relay
		}
	}
	h := fnv.New32a()
	h.Write([]byte(key + ":" + name + "/" + proto))
	start := int32(h.Sum32() % RelayPortSize)
	for i := range int32(RelayPortSize) {
		p := RelayPortBase + (start+i)%RelayPortSize
		if _, taken := r.used[p]; !taken {
			r.used[p] = key
			return p
		}
	}
	return 0
}

func hasRelay(relays []mqtt.RelayPort, port int32) bool {
	for _, r := range relays {
		if r.Relay == port {
			return true
		}
	}
	return false
}

// relayable: a Service the proxy gives a ClusterIP chain (headless and
// ExternalName ones have none).
func relayable(svc *corev1.Service) bool {
	ip := svc.Spec.ClusterIP
	return svc.Spec.Type != corev1.ServiceTypeExternalName && ip != "" && ip != corev1.ClusterIPNone
}

// countSlice reads a reduced EndpointSlice: its Service's key
// ("namespace/name", "" without the label) and its endpoints per node.
func countSlice(value []byte) (string, *sliceCounts, error) {
	var s discoveryv1.EndpointSlice
	if err := json.Unmarshal(value, &s); err != nil {
		return "", nil, err
	}
	key := ""
	if svc := s.Labels[discoveryv1.LabelServiceName]; svc != "" {
		key = s.Namespace + "/" + svc
	}
	c := &sliceCounts{ready: map[string]int32{}, serving: map[string]int32{}, all: map[string]int32{}}
	for _, e := range s.Endpoints {
		node := ""
		if e.NodeName != nil {
			node = *e.NodeName
		}
		c.all[node]++
		c.unhosted = c.unhosted || node == ""
		cond := e.Conditions
		switch {
		case cond.Ready == nil || *cond.Ready:
			c.ready[node]++
		case cond.Serving != nil && *cond.Serving && cond.Terminating != nil && *cond.Terminating:
			c.serving[node]++
		}
	}
	return key, c, nil
}

// hosts are the nodes the proxy would use endpoints of, with counts:
// ready ones (every one with publishNotReadyAddresses), or serving
// terminating ones when none is ready, as the proxy picks them.
func (st *svcState) hosts() (map[string]int32, bool) {
	ready, serving, unhosted := map[string]int32{}, map[string]int32{}, false
	for _, c := range st.slices {
		from := c.ready
		if st.svc != nil && st.svc.Spec.PublishNotReadyAddresses {
			from = c.all
		}
		for n, k := range from {
			ready[n] += k
		}
		for n, k := range c.serving {
			serving[n] += k
		}
		unhosted = unhosted || c.unhosted
	}
	if len(ready) == 0 {
		ready = serving
	}
	return ready, unhosted
}

// relayAddr is the relay address of a node: the first address of its
// pod CIDR (the overlay device's), from its stored RouteNode.
func relayAddr(route []byte) (netip.Addr, bool) {
	var n struct {
		Spec struct {
			PodCIDR string `json:"podCIDR"`
		} `json:"spec"`
	}
	if json.Unmarshal(route, &n) != nil {
		return netip.Addr{}, false
	}
	p, err := netip.ParsePrefix(n.Spec.PodCIDR)
	if err != nil || !p.Addr().Is4() {
		return netip.Addr{}, false
	}
	return p.Masked().Addr(), true
}

func sortedNodes(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
