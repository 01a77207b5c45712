package servicealloc

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// Admit allocates for a Service being created or updated (its spec: the
// status subresource is left alone). The release it returns keeps what
// was taken when the write was stored and gives back what the Service no
// longer holds; when the write failed it gives back what was taken.
func (a *Allocator) Admit(ctx context.Context, attrs *registry.Attributes) (func(bool), error) {
	if attrs.Resource.GroupResource() != api.ServiceResource.GroupResource() || attrs.Subresource != "" {
		return nil, nil
	}
	svc := attrs.Object.(*corev1.Service)
	var old *corev1.Service
	if attrs.Old != nil {
		old = attrs.Old.(*corev1.Service)
	}
	t := &txn{a: a, svc: svc, h: holder{uid: svc.UID, namespace: svc.Namespace, name: svc.Name, pending: true}}
	if err := t.clusterIP(ctx); err != nil {
		t.undo()
		return nil, err
	}
	if err := t.nodePorts(ctx); err != nil {
		t.undo()
		return nil, err
	}
	return func(stored bool) { t.finish(stored, old) }, nil
}

// taken is one fresh reservation of a write.
type taken struct {
	p   *pool
	off int
}

// txn is the allocation of one write.
type txn struct {
	a     *Allocator
	svc   *corev1.Service
	h     holder
	fresh []taken
}

var clusterIPsPath = field.NewPath("spec", "clusterIPs")

func (t *txn) clusterIP(ctx context.Context) error {
	sp := &t.svc.Spec
	if sp.Type == corev1.ServiceTypeExternalName || sp.ClusterIP == corev1.ClusterIPNone {
		return nil
	}
	if sp.ClusterIP == "" {
		off, err := t.next(ctx, t.a.ips)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: %w", err))
		}
		ip := t.a.addr(off).String()
		sp.ClusterIP, sp.ClusterIPs = ip, []string{ip}
		return nil
	}
	off, ok := t.a.offset(sp.ClusterIP)
	if !ok {
		return t.invalid(clusterIPsPath, sp.ClusterIPs, fmt.Sprintf("failed to allocate IP %s: provided IP (%s) is not in the valid range. The range of valid IPs is %s",
			sp.ClusterIP, sp.ClusterIP, t.a.cidr))
	}
	if err := t.reserve(ctx, t.a.ips, off, holdsIP(sp.ClusterIP)); err != nil {
		return t.invalid(clusterIPsPath, sp.ClusterIPs, fmt.Sprintf("failed to allocate IP %s: %v", sp.ClusterIP, err))
	}
	return nil
}

// nodePorts reserves the node ports asked for and, for a NodePort or
// LoadBalancer Service, allocates the missing ones (ports of one number
// for TCP and UDP share theirs).
func (t *txn) nodePorts(ctx context.Context) error {
	sp := &t.svc.Spec
	if sp.Type != corev1.ServiceTypeNodePort && sp.Type != corev1.ServiceTypeLoadBalancer {
		return nil
	}
	byPort, err := t.requestedNodePorts(ctx)
	if err != nil {
		return err
	}
	for i := range sp.Ports {
		p := &sp.Ports[i]
		if p.NodePort != 0 || !api.ServiceNeedsNodePorts(t.svc) {
			continue
		}
		if n, ok := byPort[p.Port]; ok {
			p.NodePort = n
			continue
		}
		off, err := t.next(ctx, t.a.nodes)
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
		}
		p.NodePort, byPort[p.Port] = int32(off), int32(off)
	}
	return t.healthCheckPort(ctx)
}

// requestedNodePorts reserves the node ports the Service names, and
// answers them by service port number.
func (t *txn) requestedNodePorts(ctx context.Context) (map[int32]int32, error) {
	byPort := map[int32]int32{}
	for i, p := range t.svc.Spec.Ports {
		if p.NodePort == 0 {
			continue
		}
		path := field.NewPath("spec", "ports").Index(i).Child("nodePort")
		if !t.a.ports.Contains(int(p.NodePort)) {
			return nil, t.invalid(path, p.NodePort, fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %s", t.a.ports))
		}
		if err := t.reserve(ctx, t.a.nodes, int(p.NodePort), holdsPort(p.NodePort)); err != nil {
			return nil, t.invalid(path, p.NodePort, err.Error())
		}
		byPort[p.Port] = p.NodePort
	}
	return byPort, nil
}

// healthCheckPort reserves or allocates the healthCheckNodePort of a
// LoadBalancer with externalTrafficPolicy Local.
func (t *txn) healthCheckPort(ctx context.Context) error {
	sp := &t.svc.Spec
	if !api.ServiceNeedsHealthCheckPort(t.svc) {
		return nil
	}
	path := field.NewPath("spec", "healthCheckNodePort")
	if n := sp.HealthCheckNodePort; n != 0 {
		if !t.a.ports.Contains(int(n)) {
			return t.invalid(path, n, fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %s", t.a.ports))
		}
		if err := t.reserve(ctx, t.a.nodes, int(n), holdsPort(n)); err != nil {
			return t.invalid(path, n, err.Error())
		}
		return nil
	}
	off, err := t.next(ctx, t.a.nodes)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
	}
	sp.HealthCheckNodePort = int32(off)
	return nil
}

func (t *txn) invalid(p *field.Path, value any, msg string) error {
	return apierrors.NewInvalid(api.ServiceResource.GroupKind(), t.svc.Name, field.ErrorList{field.Invalid(p, value, msg)})
}
