package dns

import (
	"context"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ptrTo[T any](v T) *T { return &v }

func service(ns, name, ip string, ports ...corev1.ServicePort) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.ServiceSpec{ClusterIP: ip, Ports: ports},
	}
	if ip != "" && ip != corev1.ClusterIPNone {
		svc.Spec.ClusterIPs = []string{ip}
	}
	return svc
}

func endpoint(ip, hostname string, ready bool) discoveryv1.Endpoint {
	ep := discoveryv1.Endpoint{
		Addresses:  []string{ip},
		Conditions: discoveryv1.EndpointConditions{Ready: ptrTo(ready)},
	}
	if hostname != "" {
		ep.Hostname = ptrTo(hostname)
	}
	return ep
}

func slice(ns, svc string, ports []discoveryv1.EndpointPort, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: svc + "-abc",
			Labels: map[string]string{discoveryv1.LabelServiceName: svc},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   eps,
		Ports:       ports,
	}
}

// fixture is a small cluster: a ClusterIP service with named ports, a
// headless one with a hostname endpoint, a not-ready endpoint and a
// not-ready one published, an ExternalName, and a pod outside services.
func fixture() Snapshot {
	web := service("shop", "web", "10.43.0.20",
		corev1.ServicePort{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP},
		corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP})
	db := service("shop", "db", corev1.ClusterIPNone)
	pub := service("shop", "pub", corev1.ClusterIPNone)
	pub.Spec.PublishNotReadyAddresses = true
	ext := service("shop", "ext", "")
	ext.Spec.Type, ext.Spec.ExternalName = corev1.ServiceTypeExternalName, "example.test"
	inner := service("shop", "inner", "")
	inner.Spec.Type, inner.Spec.ExternalName = corev1.ServiceTypeExternalName, "web.shop.svc.cluster.local"
	sqlPort := []discoveryv1.EndpointPort{{Name: ptrTo("sql"), Port: ptrTo(int32(5432)), Protocol: ptrTo(corev1.ProtocolTCP)}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "lone"}}
	pod.Status.PodIP = "10.42.1.9"
	return Snapshot{
		Services: []*corev1.Service{web, db, pub, ext, inner},
		EndpointSlices: []*discoveryv1.EndpointSlice{
			slice("shop", "db", sqlPort, endpoint("10.42.0.5", "db-0", true), endpoint("10.42.0.6", "", true),
				endpoint("10.42.0.7", "db-2", false)),
			slice("shop", "pub", nil, endpoint("10.42.0.8", "", false)),
		},
		Pods: []*corev1.Pod{pod},
	}
}

// startServer runs a server on a loopback port with the fixture's view.
func startServer(t testing.TB, upstreams ...string) *Server {
	t.Helper()
	s := New(Config{Addr: "127.0.0.1:0", Upstreams: upstreams, Timeout: time.Second})
	s.SetView(Build(fixture(), "cluster.local", 1))
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// query asks addr over network ("udp" or "tcp").
func query(t testing.TB, addr, network, name string, qtype uint16) *mdns.Msg {
	t.Helper()
	m := new(mdns.Msg)
	m.SetQuestion(name, qtype)
	c := &mdns.Client{Net: network, Timeout: 2 * time.Second}
	resp, _, err := c.Exchange(m, addr)
	if err != nil {
		t.Fatalf("%s %s over %s: %v", name, mdns.TypeToString[qtype], network, err)
	}
	return resp
}

// rdata is every record of a section written without its header, sorted
// by the order given.
func rdata(rrs []mdns.RR) []string {
	out := []string{}
	for _, rr := range rrs {
		h := rr.Header().String()
		out = append(out, mdns.TypeToString[rr.Header().Rrtype]+" "+rr.String()[len(h):])
	}
	return out
}
