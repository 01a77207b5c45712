package apiendpoints

import (
	"maps"

	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func meta(labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: Name, Namespace: Namespace, Labels: labels}
}

func wantEndpoints(addrs []netip.Addr, port int) *corev1.Endpoints {
	ep := &corev1.Endpoints{ObjectMeta: meta(map[string]string{discoveryv1.LabelSkipMirror: "true"})}
	sub := corev1.EndpointSubset{Ports: []corev1.EndpointPort{{Name: portName, Port: int32(port), Protocol: corev1.ProtocolTCP}}}
	for _, a := range addrs {
		sub.Addresses = append(sub.Addresses, corev1.EndpointAddress{IP: a.String()})
	}
	ep.Subsets = []corev1.EndpointSubset{sub}
	return ep
}

func wantSlice(addrs []netip.Addr, port int) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: meta(map[string]string{
		discoveryv1.LabelServiceName: Name, discoveryv1.LabelManagedBy: ManagedBy}),
		AddressType: discoveryv1.AddressTypeIPv4}
	if addrs[0].Is6() {
		s.AddressType = discoveryv1.AddressTypeIPv6
	}
	ready := true
	for _, a := range addrs {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{a.String()},
			Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &ready, Terminating: new(bool)}})
	}
	name, proto, p := portName, corev1.ProtocolTCP, int32(port)
	s.Ports = []discoveryv1.EndpointPort{{Name: &name, Protocol: &proto, Port: &p}}
	return s
}

// labelsFit reports whether have carries every label want sets.
func labelsFit(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

func endpointsFit(have, want api.Object) bool {
	h, w := have.(*corev1.Endpoints), want.(*corev1.Endpoints)
	return labelsFit(h.Labels, w.Labels) && equality.Semantic.DeepEqual(h.Subsets, w.Subsets)
}

func sliceFits(have, want api.Object) bool {
	h, w := have.(*discoveryv1.EndpointSlice), want.(*discoveryv1.EndpointSlice)
	return labelsFit(h.Labels, w.Labels) && h.AddressType == w.AddressType &&
		equality.Semantic.DeepEqual(h.Endpoints, w.Endpoints) && equality.Semantic.DeepEqual(h.Ports, w.Ports)
}

// overlay puts want's labels and contents on cur, keeping cur's metadata.
func overlay(cur, want api.Object) api.Object {
	labels := maps.Clone(cur.GetLabels())
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, want.GetLabels())
	switch w := want.(type) {
	case *corev1.Endpoints:
		c := cur.(*corev1.Endpoints)
		c.Labels, c.Subsets = labels, w.Subsets
	case *discoveryv1.EndpointSlice:
		c := cur.(*discoveryv1.EndpointSlice)
		c.Labels, c.Endpoints, c.Ports = labels, w.Endpoints, w.Ports
	}
	return cur
}
