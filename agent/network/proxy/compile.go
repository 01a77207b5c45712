package proxy

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// defaultAffinity is upstream's ClientIP timeout when the service gives none.
const defaultAffinity = 10800 * time.Second

// Compile builds the Plan for the node. Services with no rules of their
// own (ExternalName, headless, no ClusterIP yet) are left out; a service
// port with no usable endpoint is kept with none, so its rules refuse.
func Compile(in Input) *Plan {
	slices := slicesByService(in.Slices)
	sums := summariesByService(in.Summaries)
	p := &Plan{ClusterCIDR: in.ClusterCIDR}
	for _, svc := range in.Services {
		if !proxied(svc) {
			continue
		}
		key := svc.Namespace + "/" + svc.Name
		for i := range svc.Spec.Ports {
			if !validPort(svc.Spec.Ports[i].Port) {
				continue // the API validates ports; a bad one from the wire is skipped
			}
			sp := compilePort(in, svc, &svc.Spec.Ports[i], slices[key])
			relay(in, svc, &svc.Spec.Ports[i], sums[key], slices[key], &sp)
			p.Ports = append(p.Ports, sp)
		}
	}
	sort.Slice(p.Ports, func(i, j int) bool { return p.Ports[i].ID < p.Ports[j].ID })
	return p
}

// proxied says whether a service gets rules on nodes.
func proxied(svc *corev1.Service) bool {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return false
	}
	ip := svc.Spec.ClusterIP
	return ip != "" && ip != corev1.ClusterIPNone
}

func compilePort(in Input, svc *corev1.Service, sp *corev1.ServicePort, slices []*discoveryv1.EndpointSlice) ServicePort {
	name := sp.Name
	if name == "" {
		name = strconv.Itoa(int(sp.Port))
	}
	out := ServicePort{ID: fmt.Sprintf("%s/%s:%s", svc.Namespace, svc.Name, name), Protocol: protocol(sp.Protocol)}
	out.Internal = frontends(svc.Spec.ClusterIPs, sp.Port)
	out.Internal = append(out.Internal, frontends(svc.Spec.ExternalIPs, sp.Port)...)
	if validPort(sp.NodePort) {
		for _, ip := range in.NodeIPs {
			out.External = append(out.External, Frontend{IP: ip, Port: uint16(sp.NodePort)})
		}
	}
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		for _, ing := range svc.Status.LoadBalancer.Ingress {
			out.External = append(out.External, frontends([]string{ing.IP}, sp.Port)...)
		}
	}
	all, local := endpoints(in.Node, svc, sp, slices)
	out.Cluster = all
	if p := svc.Spec.InternalTrafficPolicy; p != nil && *p == corev1.ServiceInternalTrafficPolicyLocal {
		out.Cluster = local
	}
	if len(out.External) > 0 && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		out.ExternalLocal, out.Local = true, local
	}
	if svc.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
		out.Affinity = affinityTimeout(svc)
	}
	return out
}

func validPort(p int32) bool { return p > 0 && p < 65536 }

func affinityTimeout(svc *corev1.Service) time.Duration {
	c := svc.Spec.SessionAffinityConfig
	if c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil && *c.ClientIP.TimeoutSeconds > 0 {
		return time.Duration(*c.ClientIP.TimeoutSeconds) * time.Second
	}
	return defaultAffinity
}

// frontends parses the IPv4 addresses of ips (others are skipped: the
// proxy programs IPv4 only for now).
func frontends(ips []string, port int32) []Frontend {
	var out []Frontend
	for _, s := range ips {
		if ip, err := netip.ParseAddr(s); err == nil && ip.Is4() {
			out = append(out, Frontend{IP: ip, Port: uint16(port)})
		}
	}
	return out
}

func protocol(p corev1.Protocol) uint8 {
	switch p {
	case corev1.ProtocolUDP:
		return unix.IPPROTO_UDP
	case corev1.ProtocolSCTP:
		return unix.IPPROTO_SCTP
	}
	return unix.IPPROTO_TCP
}
