package api

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var selectorOpts = metav1validation.LabelSelectorValidationOptions{}

// validateNetworkPolicy follows upstream's ValidateNetworkPolicySpec.
func validateNetworkPolicy(np *networkingv1.NetworkPolicy) field.ErrorList {
	s := &np.Spec
	errs := metav1validation.ValidateLabelSelector(&s.PodSelector, selectorOpts, specPath.Child("podSelector"))
	for i, r := range s.Ingress {
		p := specPath.Child("ingress").Index(i)
		errs = append(errs, validatePolicyPorts(r.Ports, p.Child("ports"))...)
		errs = append(errs, validatePolicyPeers(r.From, p.Child("from"))...)
	}
	for i, r := range s.Egress {
		p := specPath.Child("egress").Index(i)
		errs = append(errs, validatePolicyPorts(r.Ports, p.Child("ports"))...)
		errs = append(errs, validatePolicyPeers(r.To, p.Child("to"))...)
	}
	tp := specPath.Child("policyTypes")
	if len(s.PolicyTypes) > 2 {
		errs = append(errs, field.Invalid(tp, s.PolicyTypes, "may not specify more than two policyTypes"))
	}
	for i, t := range s.PolicyTypes {
		errs = append(errs, oneOf(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, tp.Index(i))...)
	}
	return errs
}

var policyProtocols = []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}

func validatePolicyPorts(ports []networkingv1.NetworkPolicyPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, port := range ports {
		ip := p.Index(i)
		if port.Protocol != nil {
			errs = append(errs, oneOf(*port.Protocol, policyProtocols, ip.Child("protocol"))...)
		}
		if port.Port == nil {
			if port.EndPort != nil {
				errs = append(errs, field.Forbidden(ip.Child("endPort"), "may not be specified when `port` is not specified"))
			}
			continue
		}
		if port.Port.Type == intstr.String {
			errs = append(errs, invalidEach(ip.Child("port"), port.Port.StrVal, validation.IsValidPortName(port.Port.StrVal))...)
			if port.EndPort != nil {
				errs = append(errs, field.Forbidden(ip.Child("endPort"), "may not be specified when `port` is non-numeric"))
			}
			continue
		}
		errs = append(errs, invalidEach(ip.Child("port"), port.Port.IntVal, validation.IsValidPortNum(int(port.Port.IntVal)))...)
		if e := port.EndPort; e != nil && *e < port.Port.IntVal {
			errs = append(errs, field.Invalid(ip.Child("endPort"), *e, "must be greater than or equal to `port`"))
		}
	}
	return errs
}

// validatePolicyPeers wants each peer to be either selectors or an IP block.
func validatePolicyPeers(peers []networkingv1.NetworkPolicyPeer, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, peer := range peers {
		ip := p.Index(i)
		sel := peer.PodSelector != nil || peer.NamespaceSelector != nil
		switch {
		case sel && peer.IPBlock != nil:
			errs = append(errs, field.Forbidden(ip, "may not specify both podSelector/namespaceSelector and ipBlock"))
		case !sel && peer.IPBlock == nil:
			errs = append(errs, field.Required(ip, "must specify a peer"))
		}
		if peer.PodSelector != nil {
			errs = append(errs, metav1validation.ValidateLabelSelector(peer.PodSelector, selectorOpts, ip.Child("podSelector"))...)
		}
		if peer.NamespaceSelector != nil {
			errs = append(errs, metav1validation.ValidateLabelSelector(peer.NamespaceSelector, selectorOpts, ip.Child("namespaceSelector"))...)
		}
		if peer.IPBlock != nil {
			errs = append(errs, validateIPBlock(peer.IPBlock, ip.Child("ipBlock"))...)
		}
	}
	return errs
}

// validateIPBlock wants a CIDR and exceptions strictly inside it.
func validateIPBlock(b *networkingv1.IPBlock, p *field.Path) field.ErrorList {
	if b.CIDR == "" {
		return field.ErrorList{field.Required(p.Child("cidr"), "")}
	}
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil {
		return field.ErrorList{field.Invalid(p.Child("cidr"), b.CIDR, "must be a valid CIDR (e.g. 10.0.0.0/16 or fd00::/64)")}
	}
	var errs field.ErrorList
	for i, ex := range b.Except {
		ep := p.Child("except").Index(i)
		e, err := netip.ParsePrefix(ex)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(ep, ex, "must be a valid CIDR"))
		case e.Bits() <= cidr.Bits() || !cidr.Contains(e.Addr()):
			errs = append(errs, field.Invalid(ep, ex, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}
