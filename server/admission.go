package server

import (
	"context"
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
	"github.com/bramble-edge/bramble/server/serviceaccounts"
	"github.com/bramble-edge/bramble/server/servicealloc"
)

// serviceAllocConfig reads --service-cidr and --service-node-port-range.
func (c *Config) serviceAllocConfig() (servicealloc.Config, error) {
	var out servicealloc.Config
	if c.ServiceCIDR != "" {
		p, err := netip.ParsePrefix(c.ServiceCIDR)
		if err != nil {
			return out, fmt.Errorf("--service-cidr %q: not a CIDR (like %s)", c.ServiceCIDR, servicealloc.DefaultServiceCIDR)
		}
		out.ServiceCIDR = p
	}
	if c.ServiceNodePortRange != "" {
		r, err := servicealloc.ParsePortRange(c.ServiceNodePortRange)
		if err != nil {
			return out, err
		}
		out.NodePorts = r
	}
	_, err := servicealloc.New(nil, out) // checks the range
	return out, err
}

// useAdmission adds the admission plugins that read or reserve beyond the
// object written: ServiceAccounts (every namespace's default one made
// now), then ClusterIP and NodePort allocation, rebuilt from the stored
// Services, and the API's own Service, default/kubernetes.
func (s *Server) useAdmission(ctx context.Context, cfg Config) error {
	sa := serviceaccounts.New(s.Registry)
	s.Registry.Use(sa)
	if err := sa.EnsureAll(ctx); err != nil {
		return fmt.Errorf("service accounts: %w", err)
	}
	acfg, err := cfg.serviceAllocConfig()
	if err != nil {
		return err
	}
	alloc, err := servicealloc.New(s.Registry, acfg)
	if err != nil {
		return err
	}
	if err := alloc.Load(ctx); err != nil {
		return fmt.Errorf("service allocations: %w", err)
	}
	s.Registry.Use(alloc)
	if err := ensureKubernetesService(ctx, s.Registry, alloc.KubernetesIP(), cfg.HTTPSPort); err != nil {
		return err
	}
	return s.startAPIEndpoints(ctx, cfg)
}

// ensureKubernetesService creates default/kubernetes, the API's Service at
// the first address of the service network, as upstream and k3s do.
func ensureKubernetesService(ctx context.Context, reg *registry.Registry, ip netip.Addr, port int) error {
	if _, err := reg.Get(ctx, api.ServiceResource, "default", "kubernetes"); !apierrors.IsNotFound(err) {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default",
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"}},
		Spec: corev1.ServiceSpec{ClusterIP: ip.String(), Ports: []corev1.ServicePort{{
			Name: "https", Port: 443, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt(port)}}},
	}
	_, err := reg.Create(ctx, api.ServiceResource, "default", svc, registry.WriteOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("service default/kubernetes: %w", err)
	}
	return nil
}
