package endpoints

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

// LabelHeadless marks the Endpoints of a headless Service, as upstream's.
const LabelHeadless = "service.kubernetes.io/headless"

// sync writes the Endpoints of the Service key names.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	obj, ok := c.svcInf.Get(ns, name)
	if !ok {
		return c.deleteEndpoints(ctx, ns, name)
	}
	svc := obj.(*corev1.Service)
	if svc.Spec.Selector == nil || svc.Spec.Type == corev1.ServiceTypeExternalName || svc.DeletionTimestamp != nil {
		return nil
	}
	return c.write(ctx, svc, c.subsets(svc))
}

func (c *Controller) deleteEndpoints(ctx context.Context, ns, name string) error {
	if _, ok := c.epInf.Get(ns, name); !ok {
		return nil
	}
	err := c.client.Delete(ctx, endpoints, ns, name, controllers.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// write creates or updates the Endpoints when they differ from subsets.
func (c *Controller) write(ctx context.Context, svc *corev1.Service, subsets []corev1.EndpointSubset) error {
	want := map[string]string{}
	for k, v := range svc.Labels {
		want[k] = v
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		want[LabelHeadless] = ""
	}
	cur, ok := c.epInf.Get(svc.Namespace, svc.Name)
	if !ok {
		ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: svc.Name, Namespace: svc.Namespace, Labels: want},
			Subsets: subsets}
		_, err := c.client.Create(ctx, ep)
		return err
	}
	ep := cur.(*corev1.Endpoints)
	if equality.Semantic.DeepEqual(ep.Subsets, subsets) && equality.Semantic.DeepEqual(ep.Labels, want) {
		return nil
	}
	next := ep.DeepCopy() // never change the cached object
	next.Subsets, next.Labels = subsets, want
	if _, err := c.client.Update(ctx, next); err != nil {
		return fmt.Errorf("update endpoints %s/%s: %w", svc.Namespace, svc.Name, err)
	}
	return nil
}

// subsets are the addresses of the pods svc selects, grouped by the
// ports they serve, sorted so that equal sets compare equal.
func (c *Controller) subsets(svc *corev1.Service) []corev1.EndpointSubset {
	groups := map[string]*corev1.EndpointSubset{}
	for _, p := range selectedPods(c.podInf, svc) {
		if !inEndpoints(p, svc.Spec.PublishNotReadyAddresses) {
			continue
		}
		ports := podPorts(svc, p)
		if len(ports) == 0 && len(svc.Spec.Ports) > 0 {
			continue // the pod serves none of the Service's ports
		}
		key := portsKey(ports)
		ss, ok := groups[key]
		if !ok {
			ss = &corev1.EndpointSubset{Ports: ports}
			groups[key] = ss
		}
		if podReady(p) || svc.Spec.PublishNotReadyAddresses {
			ss.Addresses = append(ss.Addresses, address(p, svc))
		} else {
			ss.NotReadyAddresses = append(ss.NotReadyAddresses, address(p, svc))
		}
	}
	return sortedSubsets(groups)
}

func sortedSubsets(groups map[string]*corev1.EndpointSubset) []corev1.EndpointSubset {
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []corev1.EndpointSubset
	for _, k := range keys {
		ss := groups[k]
		byIP := func(a []corev1.EndpointAddress) func(i, j int) bool {
			return func(i, j int) bool { return a[i].IP < a[j].IP }
		}
		sort.Slice(ss.Addresses, byIP(ss.Addresses))
		sort.Slice(ss.NotReadyAddresses, byIP(ss.NotReadyAddresses))
		out = append(out, *ss)
	}
	return out
}

func portsKey(ports []corev1.EndpointPort) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = fmt.Sprintf("%s/%d/%s", p.Name, p.Port, p.Protocol)
	}
	return strings.Join(parts, ",")
}
