package mqtt

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Every routing node's desired stream carries every Service and every
// EndpointSlice (docs/SERVICES.md), reduced to what the agent's service
// proxy and cluster DNS read, and stored under these resources in the
// agent's local store, so both work after a restart without the server.
const (
	ResourceServices       = "services"
	ResourceEndpointSlices = "endpointslices"
)

// ProxyService is the part of a Service the proxy and DNS read: name,
// namespace and UID, the spec without the selector (the server's
// EndpointSlice controller reads it, no agent does), and the load
// balancer ingress. Labels, annotations, managedFields and owner
// references stay on the server: a write changing only those reaches no
// agent.
func ProxyService(s *corev1.Service) *corev1.Service {
	out := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name, UID: s.UID},
		Spec:       *s.Spec.DeepCopy(),
	}
	out.Spec.Selector = nil
	out.Status.LoadBalancer.Ingress = s.Status.LoadBalancer.Ingress
	return out
}

// ProxySlice is the part of an EndpointSlice the proxy and DNS read: its
// service-name label, address type, ports, and per endpoint the
// addresses, conditions, hostname and node name (no targetRef, zone or
// hints).
func ProxySlice(s *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
	out := &discoveryv1.EndpointSlice{
		TypeMeta:    metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta:  metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name, UID: s.UID},
		AddressType: s.AddressType,
		Ports:       s.Ports,
	}
	if svc, ok := s.Labels[discoveryv1.LabelServiceName]; ok {
		out.Labels = map[string]string{discoveryv1.LabelServiceName: svc}
	}
	for _, e := range s.Endpoints {
		out.Endpoints = append(out.Endpoints, discoveryv1.Endpoint{Addresses: e.Addresses,
			Conditions: e.Conditions, Hostname: e.Hostname, NodeName: e.NodeName})
	}
	return out
}

// EncodeProxyObject reduces a stored Service or EndpointSlice (JSON, of
// resource) with ProxyService or ProxySlice and returns the reduced JSON.
func EncodeProxyObject(resource string, stored []byte) ([]byte, error) {
	switch resource {
	case ResourceServices:
		var s corev1.Service
		if err := json.Unmarshal(stored, &s); err != nil {
			return nil, fmt.Errorf("decode service: %w", err)
		}
		return json.Marshal(ProxyService(&s))
	case ResourceEndpointSlices:
		var s discoveryv1.EndpointSlice
		if err := json.Unmarshal(stored, &s); err != nil {
			return nil, fmt.Errorf("decode endpointslice: %w", err)
		}
		return json.Marshal(ProxySlice(&s))
	}
	return nil, fmt.Errorf("resource %q is neither %s nor %s", resource, ResourceServices, ResourceEndpointSlices)
}
