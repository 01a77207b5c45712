package dns

import (
	"net/netip"
	"strings"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// addService adds one Service's names: its ClusterIPs (or, headless, its
// endpoints' addresses), SRV records for its named ports, or the CNAME of
// an ExternalName.
func (v *View) addService(svc *corev1.Service, slices []*discoveryv1.EndpointSlice) {
	if svc.Name == "" || svc.Namespace == "" {
		return
	}
	base := strings.ToLower(svc.Name + "." + svc.Namespace + ".svc." + v.domain)
	v.ensure(base)
	switch {
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		if svc.Spec.ExternalName == "" {
			return
		}
		v.add(&mdns.CNAME{
			Hdr:    mdns.RR_Header{Name: base, Rrtype: mdns.TypeCNAME, Class: mdns.ClassINET, Ttl: ttl},
			Target: mdns.Fqdn(strings.ToLower(svc.Spec.ExternalName)),
		})
	case svc.Spec.ClusterIP == corev1.ClusterIPNone:
		v.addHeadless(svc, base, slices)
	default:
		v.addClusterIP(svc, base)
	}
}

func (v *View) addClusterIP(svc *corev1.Service, base string) {
	ips := svc.Spec.ClusterIPs
	if len(ips) == 0 && svc.Spec.ClusterIP != "" {
		ips = []string{svc.Spec.ClusterIP}
	}
	for _, s := range ips {
		ip, err := netip.ParseAddr(s)
		if err != nil {
			continue
		}
		v.addAddr(base, ip)
		v.addPTR(ip, base)
	}
	if len(ips) == 0 {
		return
	}
	for _, p := range svc.Spec.Ports {
		v.addSRV(base, p.Name, p.Protocol, base, p.Port)
	}
}

// addHeadless adds the endpoints' addresses at the service's name and at
// each endpoint's own name (its hostname, or its dashed address), with an
// SRV record per endpoint and named port. Endpoints not ready are left out
// unless the service publishes not-ready addresses.
func (v *View) addHeadless(svc *corev1.Service, base string, slices []*discoveryv1.EndpointSlice) {
	for _, es := range slices {
		for _, ep := range es.Endpoints {
			if !svc.Spec.PublishNotReadyAddresses && ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				continue
			}
			for _, s := range ep.Addresses {
				if ip, err := netip.ParseAddr(s); err == nil {
					v.addEndpoint(base, ip, ep.Hostname, es.Ports)
				}
			}
		}
	}
}

// addEndpoint adds one endpoint address of a headless service.
func (v *View) addEndpoint(base string, ip netip.Addr, hostname *string, ports []discoveryv1.EndpointPort) {
	label := dashed(ip)
	if hostname != nil && *hostname != "" {
		label = strings.ToLower(*hostname)
	}
	own := label + "." + base
	v.addAddr(base, ip)
	v.addAddr(own, ip)
	v.addPTR(ip, own)
	for _, p := range ports {
		if p.Name == nil || p.Port == nil {
			continue
		}
		proto := corev1.ProtocolTCP
		if p.Protocol != nil {
			proto = *p.Protocol
		}
		v.addSRV(base, *p.Name, proto, own, *p.Port)
	}
}

// addSRV adds a record for one port at the service's name (all ports) and,
// when the port is named, at _name._proto.<service>.
func (v *View) addSRV(base, name string, proto corev1.Protocol, target string, port int32) {
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	owners := []string{base}
	if name != "" {
		owners = append(owners, "_"+strings.ToLower(name)+"._"+strings.ToLower(string(proto))+"."+base)
	}
	for _, owner := range owners {
		v.add(&mdns.SRV{
			Hdr:      mdns.RR_Header{Name: owner, Rrtype: mdns.TypeSRV, Class: mdns.ClassINET, Ttl: ttl},
			Priority: 0, Weight: 100, Port: uint16(port), Target: target,
		})
	}
}

// addPod gives a pod with an address the name <dashed-ip>.<ns>.pod.<domain>
// (CoreDNS's "pods verified") and, unless a service or endpoint already
// named that address, the PTR record to it.
func (v *View) addPod(p *corev1.Pod) {
	if p.Namespace == "" || p.Spec.HostNetwork {
		return
	}
	ips := p.Status.PodIPs
	if len(ips) == 0 && p.Status.PodIP != "" {
		ips = []corev1.PodIP{{IP: p.Status.PodIP}}
	}
	for _, s := range ips {
		ip, err := netip.ParseAddr(s.IP)
		if err != nil {
			continue
		}
		name := dashed(ip) + "." + strings.ToLower(p.Namespace) + ".pod." + v.domain
		v.addAddr(name, ip)
		v.addPTR(ip, name)
	}
}
