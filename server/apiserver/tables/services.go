package tables

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(servicesPrinters) }

func servicesPrinters() {
	register("Service", serviceCells, "Name", "string", "Type", "string", "Cluster-IP", "string",
		"External-IP", "string", "Port(s)", "string", "Age", "string", "Selector+", "string")
	register("Endpoints", endpointsCells, "Name", "string", "Endpoints", "string", "Age", "string")
	register("EndpointSlice", endpointSliceCells, "Name", "string", "AddressType", "string", "Ports", "string",
		"Endpoints", "string", "Age", "string")
	register("ServiceAccount", serviceAccountCells, "Name", "string", "Secrets", "integer", "Age", "string")
	for k, v := range map[string]string{
		"Cluster-IP": "The service's address inside the cluster.", "External-IP": "Addresses the service is reached at from outside.",
		"Port(s)": "The service's ports (port:nodePort/protocol).", "Endpoints": "Addresses and ports behind the service.",
		"AddressType": "The type of the slice's addresses.", "Ports": "The ports of the slice.",
		"Secrets": "Number of secrets the service account refers to.",
	} {
		columnHelp[k] = v
	}
}

func serviceCells(obj api.Object, now time.Time) []any {
	s := obj.(*corev1.Service)
	sel := "<none>"
	if len(s.Spec.Selector) > 0 {
		sel = labels.FormatLabels(s.Spec.Selector)
	}
	return []any{s.Name, string(s.Spec.Type), orNone(s.Spec.ClusterIP), serviceExternalIP(s),
		servicePorts(s.Spec.Ports), age(s.CreationTimestamp, now), sel}
}

// serviceExternalIP is kubectl's EXTERNAL-IP: the external name, the
// load balancer's addresses ("<pending>" until it has one) and externalIPs.
func serviceExternalIP(s *corev1.Service) string {
	ips := append([]string(nil), s.Spec.ExternalIPs...)
	switch s.Spec.Type {
	case corev1.ServiceTypeExternalName:
		return s.Spec.ExternalName
	case corev1.ServiceTypeLoadBalancer:
		for _, in := range s.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				ips = append(ips, in.IP)
			} else if in.Hostname != "" {
				ips = append(ips, in.Hostname)
			}
		}
		if len(ips) == 0 {
			return "<pending>"
		}
	}
	return orNone(strings.Join(ips, ","))
}

func servicePorts(ports []corev1.ServicePort) string {
	out := make([]string, len(ports))
	for i, p := range ports {
		out[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		if p.NodePort != 0 {
			out[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		}
	}
	return orNone(strings.Join(out, ","))
}

func endpointsCells(obj api.Object, now time.Time) []any {
	e := obj.(*corev1.Endpoints)
	var list []string
	for _, ss := range e.Subsets {
		for _, a := range ss.Addresses {
			if len(ss.Ports) == 0 {
				list = append(list, a.IP)
			}
			for _, p := range ss.Ports {
				list = append(list, fmt.Sprintf("%s:%d", a.IP, p.Port))
			}
		}
	}
	return []any{e.Name, orNone(firstThree(list)), age(e.CreationTimestamp, now)}
}

// firstThree joins up to three entries and counts the rest, as kubectl
// prints endpoints.
func firstThree(list []string) string {
	if len(list) <= 3 {
		return strings.Join(list, ",")
	}
	return fmt.Sprintf("%s + %d more...", strings.Join(list[:3], ","), len(list)-3)
}

func endpointSliceCells(obj api.Object, now time.Time) []any {
	s := obj.(*discoveryv1.EndpointSlice)
	var ports, addrs []string
	for _, p := range s.Ports {
		if p.Port != nil {
			ports = append(ports, fmt.Sprint(*p.Port))
		}
	}
	for _, e := range s.Endpoints {
		addrs = append(addrs, e.Addresses...)
	}
	return []any{s.Name, string(s.AddressType), orUnset(firstThree(ports)), orUnset(firstThree(addrs)), age(s.CreationTimestamp, now)}
}

func orUnset(s string) string {
	if s == "" {
		return "<unset>"
	}
	return s
}

func serviceAccountCells(obj api.Object, now time.Time) []any {
	sa := obj.(*corev1.ServiceAccount)
	return []any{sa.Name, int64(len(sa.Secrets)), age(sa.CreationTimestamp, now)}
}
