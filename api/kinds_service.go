package api

import (
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ServiceResource is core/v1 services; its ClusterIPs and NodePorts are
// allocated by the server's admission (server/servicealloc).
var ServiceResource = &Resource{Version: "v1", Name: "services", Singular: "service", Kind: "Service",
	Namespaced: true, ShortNames: []string{"svc"}, Categories: []string{"all"}, Subresources: []string{"status"},
	newObject: func() Object { return &corev1.Service{} },
	newList:   func() runtime.Object { return &corev1.ServiceList{} }}

func init() {
	register(ServiceResource, Rules{
		Default:       func(o Object) { defaultService(o.(*corev1.Service)) },
		PrepareUpdate: func(o, old Object) { prepareServiceUpdate(o.(*corev1.Service), old.(*corev1.Service)) },
		Validate:      func(o Object) field.ErrorList { return validateService(o.(*corev1.Service)) },
		ValidateUpdate: func(o, old Object) field.ErrorList {
			return validateServiceUpdate(o.(*corev1.Service), old.(*corev1.Service))
		},
		ValidateStatus: func(o Object) field.ErrorList { return validateServiceStatus(o.(*corev1.Service)) },
		Name:           apivalidation.NameIsDNS1035Label,
		Fields: func(o Object, set fields.Set) {
			s := o.(*corev1.Service)
			set["spec.clusterIP"], set["spec.type"] = s.Spec.ClusterIP, string(s.Spec.Type)
		},
	})
}

// defaultService sets upstream's defaults: type ClusterIP, session
// affinity None, ports TCP with targetPort = port, single-stack IPv4 (the
// only family bramble serves), traffic policies Cluster, and clusterIP
// and clusterIPs kept in step.
func defaultService(s *corev1.Service) {
	sp := &s.Spec
	if sp.Type == "" {
		sp.Type = corev1.ServiceTypeClusterIP
	}
	if sp.SessionAffinity == "" {
		sp.SessionAffinity = corev1.ServiceAffinityNone
	}
	if sp.SessionAffinity == corev1.ServiceAffinityClientIP && sp.SessionAffinityConfig == nil {
		sp.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{
			TimeoutSeconds: ptrTo(corev1.DefaultClientIPServiceAffinitySeconds)}}
	}
	for i := range sp.Ports {
		p := &sp.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort == (intstr.IntOrString{}) {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	nodePorts := sp.Type == corev1.ServiceTypeNodePort || sp.Type == corev1.ServiceTypeLoadBalancer
	if nodePorts && sp.ExternalTrafficPolicy == "" {
		sp.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if sp.Type == corev1.ServiceTypeLoadBalancer && sp.AllocateLoadBalancerNodePorts == nil {
		sp.AllocateLoadBalancerNodePorts = ptrTo(true)
	}
	if sp.Type != corev1.ServiceTypeExternalName {
		defaultServiceIPs(sp)
	}
}

func defaultServiceIPs(sp *corev1.ServiceSpec) {
	if sp.InternalTrafficPolicy == nil {
		sp.InternalTrafficPolicy = ptrTo(corev1.ServiceInternalTrafficPolicyCluster)
	}
	if sp.ClusterIP != "" && len(sp.ClusterIPs) == 0 {
		sp.ClusterIPs = []string{sp.ClusterIP}
	}
	if sp.ClusterIP == "" && len(sp.ClusterIPs) > 0 {
		sp.ClusterIP = sp.ClusterIPs[0]
	}
	if sp.IPFamilyPolicy == nil {
		sp.IPFamilyPolicy = ptrTo(corev1.IPFamilyPolicySingleStack)
	}
	if len(sp.IPFamilies) == 0 {
		sp.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
}

// prepareServiceUpdate does what upstream's update strategy does before
// validation: values the server allocated and the client left out (a PUT
// of the manifest as written) are kept, and fields the new type does not
// use are dropped when the client did not change them.
func prepareServiceUpdate(s, old *corev1.Service) {
	sp, op := &s.Spec, &old.Spec
	if sp.Type != corev1.ServiceTypeExternalName && op.Type != corev1.ServiceTypeExternalName &&
		sp.ClusterIP == "" && len(sp.ClusterIPs) == 0 {
		sp.ClusterIP, sp.ClusterIPs = op.ClusterIP, append([]string(nil), op.ClusterIPs...)
	}
	if ServiceNeedsNodePorts(s) && ServiceNeedsNodePorts(old) {
		keepNodePorts(sp.Ports, op.Ports)
	}
	keepHealthCheckPort(s, old)
	if !ServiceNeedsNodePorts(s) && ServiceNeedsNodePorts(old) {
		for i := range sp.Ports {
			if i < len(op.Ports) && sp.Ports[i].NodePort == op.Ports[i].NodePort {
				sp.Ports[i].NodePort = 0
			}
		}
	}
	if sp.Type == corev1.ServiceTypeExternalName && op.Type != corev1.ServiceTypeExternalName {
		if sp.ClusterIP == op.ClusterIP {
			sp.ClusterIP, sp.ClusterIPs = "", nil
		}
		sp.IPFamilies, sp.IPFamilyPolicy, sp.InternalTrafficPolicy = nil, nil, nil
	}
	if sp.Type != corev1.ServiceTypeNodePort && sp.Type != corev1.ServiceTypeLoadBalancer &&
		sp.ExternalTrafficPolicy == op.ExternalTrafficPolicy {
		sp.ExternalTrafficPolicy = ""
	}
}

// keepHealthCheckPort keeps the allocated healthCheckNodePort while s
// needs one, and drops it when s no longer does.
func keepHealthCheckPort(s, old *corev1.Service) {
	sp, op := &s.Spec, &old.Spec
	switch {
	case ServiceNeedsHealthCheckPort(s) && sp.HealthCheckNodePort == 0:
		sp.HealthCheckNodePort = op.HealthCheckNodePort
	case !ServiceNeedsHealthCheckPort(s) && sp.HealthCheckNodePort == op.HealthCheckNodePort:
		sp.HealthCheckNodePort = 0
	}
}

// keepNodePorts gives ports without a nodePort the one the old port of the
// same number and protocol had.
func keepNodePorts(ports, old []corev1.ServicePort) {
	for i := range ports {
		if ports[i].NodePort != 0 {
			continue
		}
		for _, o := range old {
			if o.Port == ports[i].Port && o.Protocol == ports[i].Protocol {
				ports[i].NodePort = o.NodePort
				break
			}
		}
	}
}

// ServiceNeedsNodePorts reports whether s's ports get node ports: type
// NodePort, or LoadBalancer unless allocateLoadBalancerNodePorts is false.
func ServiceNeedsNodePorts(s *corev1.Service) bool {
	switch s.Spec.Type {
	case corev1.ServiceTypeNodePort:
		return true
	case corev1.ServiceTypeLoadBalancer:
		return s.Spec.AllocateLoadBalancerNodePorts == nil || *s.Spec.AllocateLoadBalancerNodePorts
	}
	return false
}

// ServiceNeedsHealthCheckPort reports whether s gets a healthCheckNodePort:
// a LoadBalancer that keeps traffic on the node (externalTrafficPolicy
// Local).
func ServiceNeedsHealthCheckPort(s *corev1.Service) bool {
	return s.Spec.Type == corev1.ServiceTypeLoadBalancer && s.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}
