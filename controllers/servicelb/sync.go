package servicelb

import (
	"context"
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// sync writes the load balancer ingress of the Service key names.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	obj, ok := c.svcInf.Get(ns, name)
	if !ok {
		return nil
	}
	svc := obj.(*corev1.Service)
	if svc.Spec.LoadBalancerClass != nil || svc.DeletionTimestamp != nil {
		return nil // another controller's, or going
	}
	var want []string
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		want = c.addresses(svc)
	}
	if slices.Equal(ingressIPs(svc), want) {
		return nil
	}
	next := svc.DeepCopy() // never change the cached object
	next.Status.LoadBalancer.Ingress = nil
	for _, ip := range want {
		next.Status.LoadBalancer.Ingress = append(next.Status.LoadBalancer.Ingress, corev1.LoadBalancerIngress{IP: ip})
	}
	if _, err := c.client.UpdateStatus(ctx, next); err != nil {
		return fmt.Errorf("update load balancer status of service %s: %w", key, err)
	}
	return nil
}

// addresses are the sorted, distinct addresses of the nodes that answer
// for svc (the package comment says which).
func (c *Controller) addresses(svc *corev1.Service) []string {
	serving := c.servingNodes(svc)
	labelled := c.labelledNodes()
	local := svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	var ips []netip.Addr
	for _, o := range c.nodeInf.List("", nil) {
		n := o.(*corev1.Node)
		ok := serving[n.Name]
		if labelled {
			ok = n.Labels[LabelEnableLB] == "true" && nodeReady(n) && (ok || !local)
		}
		if ip := nodeAddress(n); ok && ip.IsValid() {
			ips = append(ips, ip)
		}
	}
	slices.SortFunc(ips, netip.Addr.Compare)
	ips = slices.Compact(ips)
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.String()
	}
	return out
}

// servingNodes are the nodes with a ready endpoint of svc.
func (c *Controller) servingNodes(svc *corev1.Service) map[string]bool {
	out := map[string]bool{}
	for _, o := range c.sliceInf.ByIndex(indexService, controllers.KeyOf(svc)) {
		for _, ep := range o.(*discoveryv1.EndpointSlice).Endpoints {
			ready := ep.Conditions.Ready == nil || *ep.Conditions.Ready
			if ready && ep.NodeName != nil && *ep.NodeName != "" {
				out[*ep.NodeName] = true
			}
		}
	}
	return out
}

// labelledNodes says whether any node carries enablelb=true.
func (c *Controller) labelledNodes() bool {
	for _, o := range c.nodeInf.List("", nil) {
		if o.GetLabels()[LabelEnableLB] == "true" {
			return true
		}
	}
	return false
}

// nodeAddress is n's IPv4 ExternalIP, else its IPv4 InternalIP (the
// service network is single-stack IPv4); the zero Addr when it has neither.
func nodeAddress(n *corev1.Node) netip.Addr {
	var internal netip.Addr
	for _, a := range n.Status.Addresses {
		ip, err := netip.ParseAddr(a.Address)
		if err != nil || !ip.Is4() {
			continue
		}
		switch {
		case a.Type == corev1.NodeExternalIP:
			return ip
		case a.Type == corev1.NodeInternalIP && !internal.IsValid():
			internal = ip
		}
	}
	return internal
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ingressIPs are the IPs svc's status lists now, in order.
func ingressIPs(svc *corev1.Service) []string {
	var out []string
	for _, in := range svc.Status.LoadBalancer.Ingress {
		out = append(out, in.IP)
	}
	return out
}
