package endpoints

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/controllers"
)

// sync writes the slices of the Service key names. A deleted Service's
// slices are left to the garbage collector (the Service owns them).
func (c *SliceController) sync(ctx context.Context, key string) error {
	ns, name := controllers.SplitKey(key)
	obj, ok := c.svcInf.Get(ns, name)
	if !ok {
		c.exp.Forget(key)
		return nil
	}
	if !c.exp.Satisfied(key, controllers.CachedPods(c.sliceInf, ns)) {
		c.queue.AddAfter(key, expectationRecheck)
		return nil
	}
	svc := obj.(*corev1.Service)
	if svc.Spec.Selector == nil || svc.Spec.Type == corev1.ServiceTypeExternalName || svc.DeletionTimestamp != nil {
		return nil
	}
	return c.apply(ctx, key, c.desired(svc), c.owned(svc))
}

// apply rewrites have (the slices there are) into want: the first ones
// updated in place, the missing created, the rest deleted.
func (c *SliceController) apply(ctx context.Context, key string, want, have []*discoveryv1.EndpointSlice) error {
	for i, w := range want {
		var err error
		if i < len(have) {
			err = c.update(ctx, have[i], w)
		} else {
			err = c.create(ctx, key, w)
		}
		if err != nil {
			return fmt.Errorf("write endpointslice of %s: %w", key, err)
		}
	}
	for _, extra := range have[min(len(want), len(have)):] {
		c.exp.ExpectDelete(key, extra.Name, extra.UID)
		err := c.client.Delete(ctx, endpointSlices, extra.Namespace, extra.Name, controllers.DeleteOptions{UID: string(extra.UID)})
		if err != nil && !apierrors.IsNotFound(err) {
			c.exp.Forget(key)
			return fmt.Errorf("delete endpointslice %s/%s: %w", extra.Namespace, extra.Name, err)
		}
	}
	return nil
}

// expectationRecheck is how soon a sync held back by expectations looks
// again (the slice events usually queue it sooner).
const expectationRecheck = 100 * time.Millisecond

func (c *SliceController) create(ctx context.Context, key string, s *discoveryv1.EndpointSlice) error {
	out, err := c.client.Create(ctx, s)
	if err != nil {
		return err
	}
	c.exp.ExpectCreate(key, out.GetName())
	return nil
}

func (c *SliceController) update(ctx context.Context, cur, want *discoveryv1.EndpointSlice) error {
	if equality.Semantic.DeepEqual(cur.Endpoints, want.Endpoints) && equality.Semantic.DeepEqual(cur.Ports, want.Ports) &&
		equality.Semantic.DeepEqual(cur.Labels, want.Labels) {
		return nil
	}
	next := cur.DeepCopy() // never change the cached object
	next.Endpoints, next.Ports, next.Labels = want.Endpoints, want.Ports, want.Labels
	_, err := c.client.Update(ctx, next)
	return err
}

// owned lists the slices this controller wrote for svc, by name.
func (c *SliceController) owned(svc *corev1.Service) []*discoveryv1.EndpointSlice {
	var out []*discoveryv1.EndpointSlice
	for _, o := range c.sliceInf.ByIndex(controllers.IndexOwner, string(svc.UID)) {
		s := o.(*discoveryv1.EndpointSlice)
		if s.Labels[discoveryv1.LabelManagedBy] == SliceComponent && s.Namespace == svc.Namespace {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// desired are svc's slices: its pods' endpoints grouped by the ports they
// serve, at most maxSliceEndpoints a slice, or one empty slice.
func (c *SliceController) desired(svc *corev1.Service) []*discoveryv1.EndpointSlice {
	sel := labels.SelectorFromValidatedSet(svc.Spec.Selector)
	groups, ports := map[string][]discoveryv1.Endpoint{}, map[string][]corev1.EndpointPort{}
	for _, o := range c.podInf.ByIndex(controllers.IndexNamespace, svc.Namespace) {
		p := o.(*corev1.Pod)
		if !sel.Matches(labels.Set(p.Labels)) || !inEndpoints(p, true) {
			continue
		}
		pp := podPorts(svc, p)
		if len(pp) == 0 && len(svc.Spec.Ports) > 0 {
			continue
		}
		k := portsKey(pp)
		groups[k], ports[k] = append(groups[k], sliceEndpoint(p, svc)), pp
	}
	return chunked(svc, groups, ports)
}

// chunked cuts each group of endpoints, sorted, into slices of at most
// maxSliceEndpoints; no group at all gives one empty slice.
func chunked(svc *corev1.Service, groups map[string][]discoveryv1.Endpoint, ports map[string][]corev1.EndpointPort) []*discoveryv1.EndpointSlice {
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []*discoveryv1.EndpointSlice
	for _, k := range keys {
		eps := groups[k]
		sort.Slice(eps, func(i, j int) bool { return eps[i].Addresses[0] < eps[j].Addresses[0] })
		for len(eps) > 0 {
			n := min(len(eps), maxSliceEndpoints)
			out = append(out, newSlice(svc, eps[:n], ports[k]))
			eps = eps[n:]
		}
	}
	if len(out) == 0 {
		out = append(out, newSlice(svc, nil, nil))
	}
	return out
}
