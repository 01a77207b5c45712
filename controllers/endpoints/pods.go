package endpoints

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// inEndpoints reports whether p is an address at all: it has an IP, has
// not finished for good, and is not being deleted (unless the Service
// publishes addresses that are not ready).
func inEndpoints(p *corev1.Pod, includeTerminating bool) bool {
	if p.Status.PodIP == "" {
		return false
	}
	done := p.Status.Phase == corev1.PodSucceeded ||
		(p.Status.Phase == corev1.PodFailed && p.Spec.RestartPolicy == corev1.RestartPolicyNever)
	if done && p.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		return false
	}
	return p.DeletionTimestamp == nil || includeTerminating
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podPorts resolves each Service port on p; a port whose named targetPort
// p does not declare is left out.
func podPorts(svc *corev1.Service, p *corev1.Pod) []corev1.EndpointPort {
	var out []corev1.EndpointPort
	for _, sp := range svc.Spec.Ports {
		n, ok := findPort(p, sp.TargetPort, sp.Protocol)
		if !ok {
			continue
		}
		out = append(out, corev1.EndpointPort{Name: sp.Name, Port: n, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol})
	}
	return out
}

// findPort is a number as it is, or the container port of that name and
// protocol.
func findPort(p *corev1.Pod, target intstr.IntOrString, proto corev1.Protocol) (int32, bool) {
	if target.Type == intstr.Int {
		return target.IntVal, target.IntVal > 0
	}
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == target.StrVal && (cp.Protocol == proto || (cp.Protocol == "" && proto == corev1.ProtocolTCP)) {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}

// address is p as an endpoint address of svc; its hostname is the pod's
// when the pod names svc as its subdomain.
func address(p *corev1.Pod, svc *corev1.Service) corev1.EndpointAddress {
	a := corev1.EndpointAddress{IP: p.Status.PodIP,
		TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID}}
	if p.Spec.NodeName != "" {
		node := p.Spec.NodeName
		a.NodeName = &node
	}
	if p.Spec.Hostname != "" && p.Spec.Subdomain == svc.Name {
		a.Hostname = p.Spec.Hostname
	}
	return a
}

// sliceEndpoint is p as an endpoint of svc's slices, with upstream's
// conditions: serving when ready, ready when serving and not terminating
// (or always, with publishNotReadyAddresses).
func sliceEndpoint(p *corev1.Pod, svc *corev1.Service) discoveryv1.Endpoint {
	serving, terminating := podReady(p), p.DeletionTimestamp != nil
	ready := (serving && !terminating) || svc.Spec.PublishNotReadyAddresses
	e := discoveryv1.Endpoint{Addresses: []string{p.Status.PodIP},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID}}
	if p.Spec.NodeName != "" {
		node := p.Spec.NodeName
		e.NodeName = &node
	}
	if p.Spec.Hostname != "" && p.Spec.Subdomain == svc.Name {
		host := p.Spec.Hostname
		e.Hostname = &host
	}
	return e
}

// sliceLabels are the labels of svc's slices: the Service's, its name,
// the manager, and the headless mark.
func sliceLabels(svc *corev1.Service) map[string]string {
	lbl := map[string]string{}
	for k, v := range svc.Labels {
		lbl[k] = v
	}
	lbl[discoveryv1.LabelServiceName], lbl[discoveryv1.LabelManagedBy] = svc.Name, SliceComponent
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		lbl[LabelHeadless] = ""
	}
	return lbl
}

// newSlice is an empty slice of svc, owned by it.
func newSlice(svc *corev1.Service) *discoveryv1.EndpointSlice {
	yes := true
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{GenerateName: svc.Name + "-", Namespace: svc.Namespace, Labels: sliceLabels(svc),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: svc.Name, UID: svc.UID,
				Controller: &yes, BlockOwnerDeletion: &yes}}},
		AddressType: discoveryv1.AddressTypeIPv4}
}

// slicePorts are resolved Service ports as a slice lists them.
func slicePorts(ports []corev1.EndpointPort) []discoveryv1.EndpointPort {
	var out []discoveryv1.EndpointPort
	for _, p := range ports {
		name, port, proto := p.Name, p.Port, p.Protocol
		out = append(out, discoveryv1.EndpointPort{Name: &name, Port: &port, Protocol: &proto, AppProtocol: p.AppProtocol})
	}
	return out
}
