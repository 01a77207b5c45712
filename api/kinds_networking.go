package api

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Ingresses, IngressClasses and NetworkPolicies are stored and validated
// as upstream's apiserver does; nothing routes or enforces them yet.
func init() {
	register(&Resource{Group: "networking.k8s.io", Version: "v1", Name: "ingresses", Singular: "ingress", Kind: "Ingress",
		Namespaced: true, ShortNames: []string{"ing"}, Subresources: []string{"status"}, Generation: true,
		StoredOnly: "no ingress controller yet: nothing routes traffic by this Ingress",
		newObject:  func() Object { return &networkingv1.Ingress{} },
		newList:    func() runtime.Object { return &networkingv1.IngressList{} }},
		Rules{Validate: func(o Object) field.ErrorList { return validateIngress(o.(*networkingv1.Ingress)) }})
	register(&Resource{Group: "networking.k8s.io", Version: "v1", Name: "ingressclasses", Singular: "ingressclass",
		Kind: "IngressClass", Generation: true,
		StoredOnly: "no ingress controller yet: no class is implemented",
		newObject:  func() Object { return &networkingv1.IngressClass{} },
		newList:    func() runtime.Object { return &networkingv1.IngressClassList{} }},
		Rules{
			Validate: func(o Object) field.ErrorList { return validateIngressClass(o.(*networkingv1.IngressClass)) },
			ValidateUpdate: func(o, old Object) field.ErrorList {
				return immutable(o.(*networkingv1.IngressClass).Spec.Controller, old.(*networkingv1.IngressClass).Spec.Controller,
					specPath.Child("controller"))
			},
		})
	register(&Resource{Group: "networking.k8s.io", Version: "v1", Name: "networkpolicies", Singular: "networkpolicy",
		Kind: "NetworkPolicy", Namespaced: true, ShortNames: []string{"netpol"}, Generation: true,
		newObject: func() Object { return &networkingv1.NetworkPolicy{} },
		newList:   func() runtime.Object { return &networkingv1.NetworkPolicyList{} }},
		Rules{
			Default:  func(o Object) { defaultNetworkPolicy(o.(*networkingv1.NetworkPolicy)) },
			Validate: func(o Object) field.ErrorList { return validateNetworkPolicy(o.(*networkingv1.NetworkPolicy)) },
		})
}

// defaultNetworkPolicy sets policyTypes (Ingress, and Egress when there are
// egress rules) and TCP on ports without a protocol, as upstream does.
func defaultNetworkPolicy(np *networkingv1.NetworkPolicy) {
	s := &np.Spec
	if len(s.PolicyTypes) == 0 {
		s.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(s.Egress) > 0 {
			s.PolicyTypes = append(s.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
	tcp := func(ports []networkingv1.NetworkPolicyPort) {
		for i := range ports {
			if ports[i].Protocol == nil {
				ports[i].Protocol = ptrTo(corev1.ProtocolTCP)
			}
		}
	}
	for i := range s.Ingress {
		tcp(s.Ingress[i].Ports)
	}
	for i := range s.Egress {
		tcp(s.Egress[i].Ports)
	}
}
