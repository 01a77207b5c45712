package tables

import (
	"fmt"
	"strings"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func init() { queuePrinters(networkingPrinters) }

func networkingPrinters() {
	register("Ingress", ingressCells, "Name", "string", "Class", "string", "Hosts", "string",
		"Address", "string", "Ports", "string", "Age", "string")
	register("IngressClass", ingressClassCells, "Name", "string", "Controller", "string",
		"Parameters", "string", "Age", "string")
	register("NetworkPolicy", networkPolicyCells, "Name", "string", "Pod-Selector", "string", "Age", "string")
	for k, v := range map[string]string{
		"Class": "The IngressClass that implements it.", "Hosts": "The hosts the rules match.",
		"Address": "Where the ingress controller serves it.", "Ports": "The ports it is served on.",
		"Parameters": "The class's parameters object.", "Pod-Selector": "The pods the policy selects.",
	} {
		if _, ok := columnHelp[k]; !ok {
			columnHelp[k] = v
		}
	}
}

// maxHosts is how many hosts kubectl lists before "+ N more...".
const maxHosts = 3

func ingressCells(obj api.Object, now time.Time) []any {
	ing := obj.(*networkingv1.Ingress)
	class := "<none>"
	if ing.Spec.IngressClassName != nil {
		class = *ing.Spec.IngressClassName
	}
	var hosts []string
	for _, r := range ing.Spec.Rules {
		if r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	shown := "*"
	if len(hosts) > 0 {
		shown = strings.Join(hosts[:min(len(hosts), maxHosts)], ",")
		if len(hosts) > maxHosts {
			shown += fmt.Sprintf(" + %d more...", len(hosts)-maxHosts)
		}
	}
	ports := "80"
	if len(ing.Spec.TLS) > 0 {
		ports = "80, 443"
	}
	return []any{ing.Name, class, shown, ingressAddress(ing.Status.LoadBalancer.Ingress), ports, age(ing.CreationTimestamp, now)}
}

// ingressAddress joins the load balancer's IPs and host names, cut to 16
// characters as kubectl does without -o wide.
func ingressAddress(list []networkingv1.IngressLoadBalancerIngress) string {
	var out []string
	for _, i := range list {
		if i.IP != "" {
			out = append(out, i.IP)
		} else if i.Hostname != "" {
			out = append(out, i.Hostname)
		}
	}
	s := strings.Join(out, ",")
	if len(s) > 16 {
		s = s[:13] + "..."
	}
	return s
}

func ingressClassCells(obj api.Object, now time.Time) []any {
	ic := obj.(*networkingv1.IngressClass)
	params := "<none>"
	if p := ic.Spec.Parameters; p != nil {
		params = p.Kind
		if p.APIGroup != nil {
			params += "." + *p.APIGroup
		}
		params += "/" + p.Name
	}
	return []any{ic.Name, ic.Spec.Controller, params, age(ic.CreationTimestamp, now)}
}

func networkPolicyCells(obj api.Object, now time.Time) []any {
	np := obj.(*networkingv1.NetworkPolicy)
	return []any{np.Name, metav1.FormatLabelSelector(&np.Spec.PodSelector), age(np.CreationTimestamp, now)}
}
