package endpoints

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

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
	pk := &packer{max: maxSliceEndpoints, labels: sliceLabels(svc), fresh: func() *discoveryv1.EndpointSlice { return newSlice(svc) }}
	return c.apply(ctx, key, pk.pack(c.desired(svc), c.owned(svc)))
}

// apply writes the plan: new slices first, then the updated, then the
// deletions, so an endpoint that moves is never missing in between.
func (c *SliceController) apply(ctx context.Context, key string, plan slicePlan) error {
	for _, s := range plan.create {
		if err := c.create(ctx, key, s); err != nil {
			return fmt.Errorf("create endpointslice of %s: %w", key, err)
		}
	}
	for _, s := range plan.update {
		if _, err := c.client.Update(ctx, s); err != nil {
			return fmt.Errorf("update endpointslice %s/%s: %w", s.Namespace, s.Name, err)
		}
	}
	for _, extra := range plan.remove {
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

// desired are svc's endpoints by the set of ports they serve: its pods'
// with an address, each Service port resolved on the pod.
func (c *SliceController) desired(svc *corev1.Service) map[string]*portGroup {
	groups := map[string]*portGroup{}
	for _, p := range selectedPods(c.podInf, svc) {
		if !inEndpoints(p, true) {
			continue
		}
		pp := podPorts(svc, p)
		if len(pp) == 0 && len(svc.Spec.Ports) > 0 {
			continue
		}
		ports := slicePorts(pp)
		k := portsKeyOf(ports)
		g := groups[k]
		if g == nil {
			g = &portGroup{ports: ports, eps: map[string]discoveryv1.Endpoint{}}
			groups[k] = g
		}
		e := sliceEndpoint(p, svc)
		g.eps[endpointKey(e)] = e
	}
	return groups
}
