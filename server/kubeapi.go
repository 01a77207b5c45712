package server

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/bramble-edge/bramble/server/apiendpoints"
	"github.com/bramble-edge/bramble/server/servicealloc"
)

// defaultClusterDomain is used when Config.ClusterDomain is empty.
const defaultClusterDomain = "cluster.local"

// apiEndpointsInterval is how often default/kubernetes's endpoints are
// checked and repaired (upstream's reconciler checks every 10 s).
const apiEndpointsInterval = 10 * time.Second

// kubernetesSANs are the names in-cluster clients reach the API by: the
// kubernetes Service's names and its ClusterIP (the first service IP).
func kubernetesSANs(cfg Config) []string {
	domain := cfg.ClusterDomain
	if domain == "" {
		domain = defaultClusterDomain
	}
	names := []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc." + domain}
	acfg, err := cfg.serviceAllocConfig()
	if err != nil {
		return names // the range is reported where the allocator is made
	}
	if alloc, err := servicealloc.New(nil, acfg); err == nil {
		names = append(names, alloc.KubernetesIP().String())
	}
	return names
}

// advertiseAddress is where the API is reached from pods: --bind-address
// when it names one address, else the first non-loopback address of the
// serving certificate (the node's interfaces).
func (s *Server) advertiseAddress(cfg Config) (netip.Addr, error) {
	if a, err := netip.ParseAddr(cfg.BindAddress); err == nil && !a.IsUnspecified() {
		return a.Unmap(), nil
	}
	for _, ip := range s.PKI.ServingCertificate().IPAddresses {
		a, ok := netip.AddrFromSlice(ip)
		if ok && !a.IsLoopback() && a.Unmap().Is4() {
			return a.Unmap(), nil
		}
	}
	return netip.Addr{}, fmt.Errorf("no address to advertise the API at: set --bind-address")
}

// startAPIEndpoints writes default/kubernetes's Endpoints and EndpointSlice
// now and keeps them repaired in the background.
func (s *Server) startAPIEndpoints(bg context.Context, cfg Config) error {
	ip, err := s.advertiseAddress(cfg)
	if err != nil {
		s.log.Warn("kubernetes service gets no endpoints", "err", err)
		return nil
	}
	r := &apiendpoints.Reconciler{Registry: s.Registry, Addresses: apiendpoints.Single(ip),
		Port: cfg.HTTPSPort, Log: s.log.With("component", "apiserver-endpoints")}
	if err := r.Reconcile(bg); err != nil {
		return fmt.Errorf("kubernetes service endpoints: %w", err)
	}
	done := make(chan struct{})
	go func() { defer close(done); r.Run(bg, apiEndpointsInterval) }()
	s.stops = append(s.stops, func() { <-done })
	return nil
}
