package servicealloc

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

func TestNodePortsAllocatedAndRefused(t *testing.T) {
	e := newEnv(t, Config{})
	s := e.mustCreate(t, svc("np", corev1.ServiceTypeNodePort, "", 80, 0, 443, 30443))
	if p := s.Spec.Ports[0].NodePort; p < 30000 || p > 32767 || s.Spec.Ports[1].NodePort != 30443 {
		t.Fatalf("got nodePorts %d, %d; want one in 30000-32767 and 30443", p, s.Spec.Ports[1].NodePort)
	}
	if s.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster {
		t.Fatalf("got externalTrafficPolicy %q, want Cluster", s.Spec.ExternalTrafficPolicy)
	}
	_, err := e.create(t, svc("clash", corev1.ServiceTypeNodePort, "", 80, 30443))
	wantInvalid(t, err, "spec.ports[0].nodePort: Invalid value: 30443: provided port is already allocated")
	_, err = e.create(t, svc("low", corev1.ServiceTypeNodePort, "", 80, 8080))
	wantInvalid(t, err, "spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767")
	dns := svc("dns", corev1.ServiceTypeNodePort, "", 53, 0, 53, 0)
	dns.Spec.Ports[1].Protocol = corev1.ProtocolUDP
	got := e.mustCreate(t, dns)
	if got.Spec.Ports[0].NodePort != got.Spec.Ports[1].NodePort {
		t.Fatalf("53/TCP and 53/UDP got nodePorts %d and %d, want one", got.Spec.Ports[0].NodePort, got.Spec.Ports[1].NodePort)
	}
	e.delete(t, "np")
	if _, err := e.create(t, svc("clash", corev1.ServiceTypeNodePort, "", 80, 30443)); err != nil {
		t.Fatalf("30443 after its Service was deleted: %v", err)
	}
}

func TestTypeChangesAllocateAndRelease(t *testing.T) {
	e := newEnv(t, Config{})
	c, ctx := e.reg.Client(), context.Background()
	s := e.mustCreate(t, svc("web", "", "", 80, 0))
	ip := s.Spec.ClusterIP
	s.Spec.Type, s.Spec.Ports[0].NodePort = corev1.ServiceTypeNodePort, 31000
	out, err := c.Update(ctx, s)
	if err != nil {
		t.Fatalf("ClusterIP -> NodePort: %v", err)
	}
	s = out.(*corev1.Service)
	if s.Spec.ClusterIP != ip || s.Spec.Ports[0].NodePort != 31000 {
		t.Fatalf("got %s %d, want %s 31000", s.Spec.ClusterIP, s.Spec.Ports[0].NodePort, ip)
	}
	if _, err := e.create(t, svc("other", corev1.ServiceTypeNodePort, "", 80, 31000)); err == nil {
		t.Fatal("31000 handed out twice")
	}
	s.Spec.Type = corev1.ServiceTypeClusterIP
	out, err = c.Update(ctx, s)
	if err != nil {
		t.Fatalf("NodePort -> ClusterIP: %v", err)
	}
	if p := out.(*corev1.Service).Spec.Ports[0].NodePort; p != 0 {
		t.Fatalf("ClusterIP Service kept nodePort %d", p)
	}
	if _, err := e.create(t, svc("other", corev1.ServiceTypeNodePort, "", 80, 31000)); err != nil {
		t.Fatalf("31000 after NodePort -> ClusterIP: %v", err)
	}
	s = out.(*corev1.Service)
	s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.43.9.9", nil
	_, err = c.Update(ctx, s)
	wantInvalid(t, err, "may not change once set")
}

func TestDryRunAndFailedWritesHoldNothing(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	dry, err := e.reg.Create(ctx, api.ServiceResource, "default", svc("dry", corev1.ServiceTypeNodePort, "10.43.5.5", 80, 30100), registry.WriteOptions{DryRun: true})
	if err != nil || dry.(*corev1.Service).Spec.ClusterIP != "10.43.5.5" {
		t.Fatalf("dry run: %v", err)
	}
	bad := svc("bad", corev1.ServiceTypeNodePort, "10.43.5.5", 80, 30100, 81, 8080) // second port out of range
	_, err = e.create(t, bad)
	wantInvalid(t, err, "spec.ports[1].nodePort")
	e.mustCreate(t, svc("taken", corev1.ServiceTypeNodePort, "", 80, 30200))
	_, err = e.create(t, svc("taken", corev1.ServiceTypeNodePort, "10.43.5.5", 80, 30100)) // AlreadyExists
	if err == nil {
		t.Fatal("second create of one name succeeded")
	}
	if s := e.mustCreate(t, svc("real", corev1.ServiceTypeNodePort, "10.43.5.5", 80, 30100)); s.Spec.ClusterIP != "10.43.5.5" {
		t.Fatalf("got %s", s.Spec.ClusterIP)
	}
	_, err = e.create(t, svc("again", corev1.ServiceTypeNodePort, "", 80, 30200))
	wantInvalid(t, err, "30200: provided port is already allocated")
}

func TestHealthCheckNodePort(t *testing.T) {
	e := newEnv(t, Config{})
	c, ctx := e.reg.Client(), context.Background()
	lb := svc("lb", corev1.ServiceTypeLoadBalancer, "", 443, 0)
	lb.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	lb = e.mustCreate(t, lb)
	hc := lb.Spec.HealthCheckNodePort
	if hc < 30000 || hc > 32767 || hc == lb.Spec.Ports[0].NodePort {
		t.Fatalf("got healthCheckNodePort %d (nodePort %d), want a port of its own in the range", hc, lb.Spec.Ports[0].NodePort)
	}
	_, err := e.create(t, svc("clash", corev1.ServiceTypeNodePort, "", 80, hc))
	wantInvalid(t, err, "provided port is already allocated")
	lb.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	out, err := c.Update(ctx, lb)
	if err != nil {
		t.Fatalf("Local -> Cluster: %v", err)
	}
	if n := out.(*corev1.Service).Spec.HealthCheckNodePort; n != 0 {
		t.Fatalf("Local -> Cluster: healthCheckNodePort %d, want 0", n)
	}
	if _, err := e.create(t, svc("clash", corev1.ServiceTypeNodePort, "", 80, hc)); err != nil {
		t.Fatalf("%d after the LoadBalancer let it go: %v", hc, err)
	}
}
