package api

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	serviceTypes = []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort,
		corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeExternalName}
	serviceProtocols = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
	affinities       = []corev1.ServiceAffinity{corev1.ServiceAffinityClientIP, corev1.ServiceAffinityNone}
	familyPolicies   = []corev1.IPFamilyPolicy{corev1.IPFamilyPolicySingleStack, corev1.IPFamilyPolicyPreferDualStack,
		corev1.IPFamilyPolicyRequireDualStack}
	externalPolicies = []corev1.ServiceExternalTrafficPolicy{corev1.ServiceExternalTrafficPolicyCluster,
		corev1.ServiceExternalTrafficPolicyLocal}
	internalPolicies = []corev1.ServiceInternalTrafficPolicy{corev1.ServiceInternalTrafficPolicyCluster,
		corev1.ServiceInternalTrafficPolicyLocal}
)

// validateService applies upstream's rules for a Service's spec.
func validateService(s *corev1.Service) field.ErrorList {
	sp := &s.Spec
	errs := oneOf(sp.Type, serviceTypes, specPath.Child("type"))
	errs = append(errs, validateServicePorts(s)...)
	errs = append(errs, validateServiceIPs(sp)...)
	errs = append(errs, oneOf(sp.SessionAffinity, affinities, specPath.Child("sessionAffinity"))...)
	if c := sp.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
		if t := *c.ClientIP.TimeoutSeconds; t <= 0 || t > maxClientIPAffinitySeconds {
			errs = append(errs, field.Invalid(specPath.Child("sessionAffinityConfig", "clientIP", "timeoutSeconds"), t,
				fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySeconds)))
		}
	}
	errs = append(errs, metav1validation.ValidateLabels(sp.Selector, specPath.Child("selector"))...)
	for i, ip := range sp.ExternalIPs {
		errs = append(errs, validation.IsValidIP(specPath.Child("externalIPs").Index(i), ip)...)
	}
	errs = append(errs, validateTrafficPolicies(sp)...)
	if sp.HealthCheckNodePort != 0 && !ServiceNeedsHealthCheckPort(s) {
		errs = append(errs, field.Invalid(specPath.Child("healthCheckNodePort"), sp.HealthCheckNodePort,
			"may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"))
	}
	if len(sp.LoadBalancerSourceRanges) > 0 && sp.Type != corev1.ServiceTypeLoadBalancer {
		errs = append(errs, field.Forbidden(specPath.Child("loadBalancerSourceRanges"), "may only be used when `type` is 'LoadBalancer'"))
	}
	if sp.Type == corev1.ServiceTypeExternalName {
		errs = append(errs, validateExternalName(sp)...)
	}
	return errs
}

func validateServicePorts(s *corev1.Service) field.ErrorList {
	sp, pp := &s.Spec, specPath.Child("ports")
	var errs field.ErrorList
	if len(sp.Ports) == 0 && sp.ClusterIP != corev1.ClusterIPNone && sp.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(pp, ""))
	}
	names, ports, nodePorts := sets.New[string](), sets.New[string](), sets.New[string]()
	for i, p := range sp.Ports {
		ip := pp.Index(i)
		errs = append(errs, validateServicePort(&p, len(sp.Ports) > 1, ip)...)
		if p.Name != "" && names.Has(p.Name) {
			errs = append(errs, field.Duplicate(ip.Child("name"), p.Name))
		}
		names.Insert(p.Name)
		if key := fmt.Sprintf("%d/%s", p.Port, p.Protocol); ports.Has(key) {
			errs = append(errs, field.Duplicate(ip, key))
		} else {
			ports.Insert(key)
		}
		errs = append(errs, validateNodePort(sp.Type, &p, nodePorts, ip)...)
	}
	return errs
}

// validateNodePort: a nodePort only on NodePort and LoadBalancer
// Services, each port and protocol once.
func validateNodePort(typ corev1.ServiceType, p *corev1.ServicePort, seen sets.Set[string], ip *field.Path) field.ErrorList {
	if p.NodePort == 0 {
		return nil
	}
	var errs field.ErrorList
	if typ == corev1.ServiceTypeClusterIP || typ == corev1.ServiceTypeExternalName {
		errs = append(errs, field.Forbidden(ip.Child("nodePort"), fmt.Sprintf("may not be used when `type` is '%s'", typ)))
	}
	if key := fmt.Sprintf("%d/%s", p.NodePort, p.Protocol); seen.Has(key) {
		errs = append(errs, field.Duplicate(ip.Child("nodePort"), p.NodePort))
	} else {
		seen.Insert(key)
	}
	return errs
}

func validateServicePort(p *corev1.ServicePort, named bool, ip *field.Path) field.ErrorList {
	var errs field.ErrorList
	if named && p.Name == "" {
		errs = append(errs, field.Required(ip.Child("name"), ""))
	} else if p.Name != "" {
		errs = append(errs, invalidEach(ip.Child("name"), p.Name, validation.IsDNS1123Label(p.Name))...)
	}
	errs = append(errs, invalidEach(ip.Child("port"), p.Port, validation.IsValidPortNum(int(p.Port)))...)
	errs = append(errs, oneOf(p.Protocol, serviceProtocols, ip.Child("protocol"))...)
	if p.TargetPort.Type == intstr.String {
		errs = append(errs, invalidEach(ip.Child("targetPort"), p.TargetPort.StrVal, validation.IsValidPortName(p.TargetPort.StrVal))...)
	} else {
		errs = append(errs, invalidEach(ip.Child("targetPort"), p.TargetPort.IntVal, validation.IsValidPortNum(int(p.TargetPort.IntVal)))...)
	}
	if p.NodePort != 0 {
		errs = append(errs, invalidEach(ip.Child("nodePort"), p.NodePort, validation.IsValidPortNum(int(p.NodePort)))...)
	}
	if p.AppProtocol != nil {
		errs = append(errs, metav1validation.ValidateLabelName(*p.AppProtocol, ip.Child("appProtocol"))...)
	}
	return errs
}

// validateServiceIPs checks clusterIP(s) and the IP families: bramble's
// service network is single-stack IPv4.
func validateServiceIPs(sp *corev1.ServiceSpec) field.ErrorList {
	var errs field.ErrorList
	cp := specPath.Child("clusterIPs")
	if len(sp.ClusterIPs) > 0 && sp.ClusterIP != "" && sp.ClusterIP != sp.ClusterIPs[0] {
		errs = append(errs, field.Invalid(cp.Index(0), sp.ClusterIPs[0], "must match `clusterIP` when both are specified"))
	}
	if len(sp.ClusterIPs) > 1 {
		errs = append(errs, field.Invalid(cp, sp.ClusterIPs, "may not have more than one IP: this cluster is not configured for dual-stack services"))
	}
	for i, ip := range sp.ClusterIPs {
		if ip == corev1.ClusterIPNone {
			if sp.Type == corev1.ServiceTypeNodePort || sp.Type == corev1.ServiceTypeLoadBalancer {
				errs = append(errs, field.Invalid(cp.Index(i), ip, fmt.Sprintf("may not be set to 'None' for %s services", sp.Type)))
			}
			continue
		}
		errs = append(errs, validation.IsValidIP(cp.Index(i), ip)...)
	}
	if sp.IPFamilyPolicy != nil {
		errs = append(errs, oneOf(*sp.IPFamilyPolicy, familyPolicies, specPath.Child("ipFamilyPolicy"))...)
		if *sp.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack {
			errs = append(errs, field.Invalid(specPath.Child("ipFamilyPolicy"), *sp.IPFamilyPolicy,
				"this cluster is not configured for dual-stack services"))
		}
	}
	for i, f := range sp.IPFamilies {
		if f != corev1.IPv4Protocol {
			errs = append(errs, field.Invalid(specPath.Child("ipFamilies").Index(i), f, "not configured on this cluster"))
		}
	}
	return errs
}

func validateTrafficPolicies(sp *corev1.ServiceSpec) field.ErrorList {
	var errs field.ErrorList
	ep := specPath.Child("externalTrafficPolicy")
	if sp.Type == corev1.ServiceTypeNodePort || sp.Type == corev1.ServiceTypeLoadBalancer {
		errs = append(errs, oneOf(sp.ExternalTrafficPolicy, externalPolicies, ep)...)
	} else if sp.ExternalTrafficPolicy != "" {
		errs = append(errs, field.Invalid(ep, sp.ExternalTrafficPolicy, "may only be set when `type` is 'NodePort' or 'LoadBalancer'"))
	}
	if sp.InternalTrafficPolicy != nil {
		errs = append(errs, oneOf(*sp.InternalTrafficPolicy, internalPolicies, specPath.Child("internalTrafficPolicy"))...)
	}
	return errs
}

func validateExternalName(sp *corev1.ServiceSpec) field.ErrorList {
	var errs field.ErrorList
	if sp.ClusterIP != "" || len(sp.ClusterIPs) > 0 {
		errs = append(errs, field.Forbidden(specPath.Child("clusterIPs"), "may not be set for ExternalName services"))
	}
	name := strings.TrimSuffix(sp.ExternalName, ".")
	if name == "" {
		return append(errs, field.Required(specPath.Child("externalName"), ""))
	}
	return append(errs, invalidEach(specPath.Child("externalName"), sp.ExternalName, validation.IsDNS1123Subdomain(name))...)
}

// validateServiceUpdate: a ClusterIP, once set, stays (unless the type
// changes to or from ExternalName, which has none).
func validateServiceUpdate(s, old *corev1.Service) field.ErrorList {
	if s.Spec.Type == corev1.ServiceTypeExternalName || old.Spec.Type == corev1.ServiceTypeExternalName || old.Spec.ClusterIP == "" {
		return nil
	}
	if s.Spec.ClusterIP != old.Spec.ClusterIP {
		return field.ErrorList{field.Invalid(specPath.Child("clusterIPs").Index(0), s.Spec.ClusterIP, "may not change once set")}
	}
	return nil
}

func validateServiceStatus(s *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("status", "loadBalancer", "ingress")
	for i, in := range s.Status.LoadBalancer.Ingress {
		if in.IP != "" {
			errs = append(errs, validation.IsValidIP(p.Index(i).Child("ip"), in.IP)...)
		}
		if in.Hostname != "" {
			errs = append(errs, invalidEach(p.Index(i).Child("hostname"), in.Hostname, validation.IsDNS1123Subdomain(in.Hostname))...)
		}
	}
	return errs
}

// maxClientIPAffinitySeconds is upstream's cap on a ClientIP affinity
// timeout (one day).
const maxClientIPAffinitySeconds = 86400
