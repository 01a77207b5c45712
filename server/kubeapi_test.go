package server

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/bramble-edge/bramble/api"
)

func startKubeAPIServer(t *testing.T, dir, domain string) (*Server, int) {
	t.Helper()
	s, err := startOnFreePorts(t, Config{DataDir: dir, WriteKubeconfig: filepath.Join(dir, "kubeconfig.yaml"), ClusterDomain: domain,
		DisableScheduler: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return s, apiPort(t, s)
}

func servingHas(t *testing.T, s *Server, dns []string, ip string) {
	t.Helper()
	c := s.PKI.ServingCertificate()
	for _, n := range dns {
		if !slices.Contains(c.DNSNames, n) {
			t.Errorf("serving certificate lacks %s: %v", n, c.DNSNames)
		}
	}
	if err := c.VerifyHostname(ip); err != nil {
		t.Errorf("serving certificate: %v", err)
	}
}

// The kubernetes Service's names and ClusterIP are in the serving
// certificate, reissued at start when the cluster domain changed; its
// Endpoints and EndpointSlice name the bind address and port.
func TestKubernetesServiceEndpointsAndNames(t *testing.T) {
	dir := t.TempDir()
	s, port := startKubeAPIServer(t, dir, "")
	servingHas(t, s, []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}, "10.43.0.1")
	ctx := context.Background()
	o, err := s.Registry.Get(ctx, api.MustLookup("", "v1", "endpoints"), "default", "kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	sub := o.(*corev1.Endpoints).Subsets
	if len(sub) != 1 || sub[0].Addresses[0].IP != "127.0.0.1" || int(sub[0].Ports[0].Port) != port {
		t.Fatalf("endpoints = %+v, want 127.0.0.1:%d", sub, port)
	}
	o, err = s.Registry.Get(ctx, api.MustLookup("discovery.k8s.io", "v1", "endpointslices"), "default", "kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	if sl := o.(*discoveryv1.EndpointSlice); sl.Endpoints[0].Addresses[0] != "127.0.0.1" || int(*sl.Ports[0].Port) != port {
		t.Fatalf("slice = %+v %+v", sl.Endpoints, sl.Ports)
	}
	s.Stop()
	s, _ = startKubeAPIServer(t, dir, "edge.test")
	defer s.Stop()
	servingHas(t, s, []string{"kubernetes.default.svc.edge.test"}, "10.43.0.1")
}
