package proxy

import (
	"net/netip"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

var (
	web   = map[string]int32{"http": 80}
	web8k = map[string]int32{"http": 8080}
)

func compileOne(svc *corev1.Service, slices ...*discoveryv1.EndpointSlice) []ServicePort {
	return Compile(Input{Node: "n1", NodeIPs: []netip.Addr{addr("192.0.2.1")},
		ClusterCIDR: netip.MustParsePrefix("10.42.0.0/16"), Services: []*corev1.Service{svc}, Slices: slices}).Ports
}

func TestCompile(t *testing.T) {
	local, remote, notReady := ep{"10.42.0.2", "n1", true}, ep{"10.42.1.2", "n2", true}, ep{"10.42.0.3", "n1", false}
	cip := []Frontend{{addr("10.43.0.5"), 80}}
	tests := []struct {
		name   string
		svc    *corev1.Service
		slices []*discoveryv1.EndpointSlice
		want   []ServicePort
	}{
		{"ClusterIP to ready endpoints", service("s", "10.43.0.5", web),
			[]*discoveryv1.EndpointSlice{slice("s", "s1", web8k, local, remote, notReady)},
			[]ServicePort{{ID: "ns/s:http", Protocol: 6, Internal: cip, Cluster: endpointsOf("10.42.0.2:8080", "10.42.1.2:8080")}}},
		{"publishNotReadyAddresses", service("s", "10.43.0.5", web, func(s *corev1.Service) { s.Spec.PublishNotReadyAddresses = true }),
			[]*discoveryv1.EndpointSlice{slice("s", "s1", web8k, notReady)},
			[]ServicePort{{ID: "ns/s:http", Protocol: 6, Internal: cip, Cluster: endpointsOf("10.42.0.3:8080")}}},
		{"no endpoints", service("s", "10.43.0.5", web), nil,
			[]ServicePort{{ID: "ns/s:http", Protocol: 6, Internal: cip}}},
		{"slice of another service", service("s", "10.43.0.5", web),
			[]*discoveryv1.EndpointSlice{slice("other", "o1", web8k, local)},
			[]ServicePort{{ID: "ns/s:http", Protocol: 6, Internal: cip}}},
		{"NodePort with externalTrafficPolicy Local", service("s", "10.43.0.5", web, nodePort("http", 30001), externalLocal),
			[]*discoveryv1.EndpointSlice{slice("s", "s1", web8k, local, remote)},
			[]ServicePort{{ID: "ns/s:http", Protocol: 6, Internal: cip, External: []Frontend{{addr("192.0.2.1"), 30001}},
				Cluster: endpointsOf("10.42.0.2:8080", "10.42.1.2:8080"), Local: endpointsOf("10.42.0.2:8080"), ExternalLocal: true}}},
		{"internalTrafficPolicy Local", service("s", "10.43.0.5", web, func(s *corev1.Service) {
			s.Spec.InternalTrafficPolicy = ptr(corev1.ServiceInternalTrafficPolicyLocal)
		}), []*discoveryv1.EndpointSlice{slice("s", "s1", web8k, local, remote)},
			[]ServicePort{{ID: "ns/s:http", Protocol: 6, Internal: cip, Cluster: endpointsOf("10.42.0.2:8080")}}},
		{"ClientIP affinity with a timeout", service("s", "10.43.0.5", web, affinity, func(s *corev1.Service) {
			s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr(int32(60))}}
		}), nil, []ServicePort{{ID: "ns/s:http", Protocol: 6, Internal: cip, Affinity: time.Minute}}},
		{"LoadBalancer ingress", service("s", "10.43.0.5", web, nodePort("http", 30001), func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeLoadBalancer
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "198.51.100.7"}}
		}), nil, []ServicePort{{ID: "ns/s:http", Protocol: 6, Internal: cip,
			External: []Frontend{{addr("192.0.2.1"), 30001}, {addr("198.51.100.7"), 80}}}}},
		{"headless", service("s", "None", web), nil, nil},
		{"ExternalName", service("s", "", web, func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeExternalName }), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compileOne(tt.svc, tt.slices...); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestCompileNamedPorts: each service port takes its number per slice, by
// name; a UDP port does not take a TCP slice port of the same name, and a
// terminating serving endpoint is used only while none is ready.
func TestCompileNamedPorts(t *testing.T) {
	svc := service("s", "10.43.0.5", map[string]int32{"http": 80, "metrics": 9000})
	s1 := slice("s", "s1", map[string]int32{"http": 8080, "metrics": 9100}, ep{"10.42.0.2", "n1", true})
	s2 := slice("s", "s2", map[string]int32{"http": 8081}, ep{"10.42.0.4", "n1", true})
	got := compileOne(svc, s1, s2)
	if len(got) != 2 || got[0].ID != "ns/s:http" || got[1].ID != "ns/s:metrics" {
		t.Fatalf("got ports %+v, want http and metrics", got)
	}
	if want := endpointsOf("10.42.0.2:8080", "10.42.0.4:8081"); !reflect.DeepEqual(got[0].Cluster, want) {
		t.Errorf("http: got %v, want %v", got[0].Cluster, want)
	}
	if want := endpointsOf("10.42.0.2:9100"); !reflect.DeepEqual(got[1].Cluster, want) {
		t.Errorf("metrics: got %v, want %v", got[1].Cluster, want)
	}
	svc.Spec.Ports = svc.Spec.Ports[:1]
	svc.Spec.Ports[0].Name, svc.Spec.Ports[0].Protocol = "http", corev1.ProtocolUDP
	if got := compileOne(svc, s1); len(got[0].Cluster) != 0 || got[0].Protocol != 17 {
		t.Errorf("UDP port took a TCP slice port: %+v", got[0])
	}
	term := slice("s", "s3", web8k, ep{"10.42.0.9", "n1", false})
	term.Endpoints[0].Conditions.Serving, term.Endpoints[0].Conditions.Terminating = ptr(true), ptr(true)
	if got := compileOne(service("s", "10.43.0.5", web), term); !reflect.DeepEqual(got[0].Cluster, endpointsOf("10.42.0.9:8080")) {
		t.Errorf("terminating fallback: got %v", got[0].Cluster)
	}
	if got := compileOne(service("s", "10.43.0.5", web), term, slice("s", "s4", web8k, ep{"10.42.0.8", "n1", true})); len(got[0].Cluster) != 1 || got[0].Cluster[0].IP != addr("10.42.0.8") {
		t.Errorf("terminating used while one is ready: got %v", got[0].Cluster)
	}
}
