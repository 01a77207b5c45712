// Package dns is the agent's cluster DNS: it answers the cluster domain
// (Services, their EndpointSlices, Pods) from an in-memory View the agent
// builds from its local store, so names resolve while the server is
// unreachable, and forwards every other name to the node's own resolvers
// with a small TTL-honouring cache. It also writes what pods see of DNS:
// their resolv.conf (ResolvConf) and the service environment (ServiceEnv).
package dns

import (
	"net/netip"
	"strings"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// ttl is the TTL of every cluster answer (CoreDNS's kubernetes plugin
// default): short, because endpoints move.
const ttl = 5

// Snapshot is what the agent's local store holds that names are made of.
// The View built from it never changes; a new snapshot makes a new View.
type Snapshot struct {
	Services       []*corev1.Service
	EndpointSlices []*discoveryv1.EndpointSlice
	Pods           []*corev1.Pod
}

// node is one owner name of the cluster zone: its records (none for an
// empty non-terminal such as "ns.svc.cluster.local.").
type node struct {
	rrs []mdns.RR
}

// View is an immutable index of the cluster zone: owner names to records,
// reverse names to PTR records.
type View struct {
	domain string // lower case, fully qualified
	names  map[string]*node
	ptr    map[string]mdns.RR
	soa    *mdns.SOA
}

// Build indexes a snapshot for the cluster domain (e.g. "cluster.local").
func Build(s Snapshot, domain string, serial uint32) *View {
	v := &View{
		domain: mdns.Fqdn(strings.ToLower(domain)),
		names:  map[string]*node{},
		ptr:    map[string]mdns.RR{},
	}
	v.soa = soaFor(v.domain, serial)
	v.ensure(v.domain)
	slices := slicesByService(s.EndpointSlices)
	for _, svc := range s.Services {
		v.addService(svc, slices[svc.Namespace+"/"+svc.Name])
	}
	for _, p := range s.Pods {
		v.addPod(p)
	}
	return v
}

func soaFor(domain string, serial uint32) *mdns.SOA {
	return &mdns.SOA{
		Hdr:     mdns.RR_Header{Name: domain, Rrtype: mdns.TypeSOA, Class: mdns.ClassINET, Ttl: ttl},
		Ns:      "ns.dns." + domain,
		Mbox:    "hostmaster." + domain,
		Serial:  serial,
		Refresh: 7200, Retry: 1800, Expire: 86400, Minttl: ttl,
	}
}

// slicesByService groups slices by "namespace/service" (their
// kubernetes.io/service-name label).
func slicesByService(slices []*discoveryv1.EndpointSlice) map[string][]*discoveryv1.EndpointSlice {
	out := map[string][]*discoveryv1.EndpointSlice{}
	for _, es := range slices {
		svc := es.Labels[discoveryv1.LabelServiceName]
		if svc == "" {
			continue
		}
		key := es.Namespace + "/" + svc
		out[key] = append(out[key], es)
	}
	return out
}

// ensure makes name and every ancestor down to the domain exist.
func (v *View) ensure(name string) *node {
	n, ok := v.names[name]
	if ok {
		return n
	}
	n = &node{}
	v.names[name] = n
	if name != v.domain {
		if i := strings.IndexByte(name, '.'); i >= 0 && i+1 < len(name) {
			v.ensure(name[i+1:])
		}
	}
	return n
}

func (v *View) add(rr mdns.RR) {
	n := v.ensure(rr.Header().Name)
	n.rrs = append(n.rrs, rr)
}

// addAddr adds an A or AAAA record for ip at name.
func (v *View) addAddr(name string, ip netip.Addr) {
	hdr := mdns.RR_Header{Name: name, Class: mdns.ClassINET, Ttl: ttl}
	if ip.Is4() {
		hdr.Rrtype = mdns.TypeA
		v.add(&mdns.A{Hdr: hdr, A: ip.AsSlice()})
		return
	}
	hdr.Rrtype = mdns.TypeAAAA
	v.add(&mdns.AAAA{Hdr: hdr, AAAA: ip.AsSlice()})
}

// addPTR points ip's reverse name at target unless something already did
// (services come first, then endpoints, then pods).
func (v *View) addPTR(ip netip.Addr, target string) {
	rev, err := mdns.ReverseAddr(ip.String())
	if err != nil {
		return
	}
	if _, ok := v.ptr[rev]; ok {
		return
	}
	v.ptr[rev] = &mdns.PTR{
		Hdr: mdns.RR_Header{Name: rev, Rrtype: mdns.TypePTR, Class: mdns.ClassINET, Ttl: ttl},
		Ptr: target,
	}
}

// dashed is an address written as one label: 10-42-0-5, fd00--1.
func dashed(ip netip.Addr) string {
	return strings.NewReplacer(".", "-", ":", "-").Replace(ip.String())
}
