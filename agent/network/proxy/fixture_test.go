package proxy

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// service is a ClusterIP service "ns/name" with one TCP port per entry of
// ports (port name -> number); change it with the option functions.
func service(name, clusterIP string, ports map[string]int32, opts ...func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: clusterIP, ClusterIPs: []string{clusterIP}}}
	for pn, p := range ports {
		s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: pn, Port: p, Protocol: corev1.ProtocolTCP,
			TargetPort: intstr.FromString(pn)})
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

func nodePort(port string, np int32) func(*corev1.Service) {
	return func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeNodePort
		for i := range s.Spec.Ports {
			if s.Spec.Ports[i].Name == port {
				s.Spec.Ports[i].NodePort = np
			}
		}
	}
}

func udp(s *corev1.Service) {
	for i := range s.Spec.Ports {
		s.Spec.Ports[i].Protocol = corev1.ProtocolUDP
	}
}

func externalLocal(s *corev1.Service) {
	s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
}

func affinity(s *corev1.Service) { s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP }

// ep is one endpoint of a slice: address, node, ready.
type ep struct {
	ip, node string
	ready    bool
}

// slice is an EndpointSlice of service name with the named ports given.
func slice(svc, name string, ports map[string]int32, eps ...ep) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name,
		Labels: map[string]string{discoveryv1.LabelServiceName: svc}}, AddressType: discoveryv1.AddressTypeIPv4}
	for pn, p := range ports {
		s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: ptr(pn), Port: ptr(p), Protocol: ptr(corev1.ProtocolTCP)})
	}
	for _, e := range eps {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{e.ip}, NodeName: ptr(e.node),
			Conditions: discoveryv1.EndpointConditions{Ready: ptr(e.ready)}})
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func addr(s string) netip.Addr { return netip.MustParseAddr(s) }

// endpointsOf parses "ip:port" endpoints.
func endpointsOf(addrs ...string) []Endpoint {
	out := make([]Endpoint, len(addrs))
	for i, s := range addrs {
		ap := netip.MustParseAddrPort(s)
		out[i] = Endpoint{IP: ap.Addr(), Port: ap.Port()}
	}
	return out
}
