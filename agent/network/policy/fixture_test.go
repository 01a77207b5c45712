package policy

import (
	"net/netip"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

// The cluster every compiler test uses. Local pods are on this node (10.0.0.x);
// peers are on other nodes (10.0.1.x) plus a host-network pod.
const (
	prodWeb    = "10.0.0.2" // prod, app=web, http=8080, metrics=9090/TCP, dns=53/UDP
	prodDB     = "10.0.0.3" // prod, app=db, pg=5432
	devWeb     = "10.0.0.4" // dev, app=web, http=80
	prodClient = "10.0.1.2" // prod, role=client
	prodOther  = "10.0.1.3" // prod, role=other
	devClient  = "10.0.1.4" // dev, role=client
	othClient  = "10.0.1.5" // other, role=client
	hostNet    = "192.168.0.10"
	outside    = "8.8.8.8"
)

func pod(ns, name, ip string, lbl map[string]string, ports ...Port) Pod {
	return Pod{Namespace: ns, Name: name, UID: ns + "-" + name, Labels: lbl,
		IPs: []netip.Addr{netip.MustParseAddr(ip)}, Ports: ports}
}

func fixture(t testing.TB, policies ...string) *Input {
	t.Helper()
	in := &Input{
		Namespaces: map[string]map[string]string{"prod": {"team": "a"}, "dev": {"team": "b"}, "other": {}},
		Local: []Pod{
			pod("prod", "web", prodWeb, map[string]string{"app": "web"},
				Port{Name: "http", Number: 8080}, Port{Name: "metrics", Number: 9090, Protocol: "TCP"},
				Port{Name: "dns", Number: 53, Protocol: "UDP"}),
			pod("prod", "db", prodDB, map[string]string{"app": "db"}, Port{Name: "pg", Number: 5432}),
			pod("dev", "web", devWeb, map[string]string{"app": "web"}, Port{Name: "http", Number: 80}),
		},
		Peers: []Pod{
			pod("prod", "client", prodClient, map[string]string{"role": "client"}),
			pod("prod", "other", prodOther, map[string]string{"role": "other"}),
			pod("dev", "client", devClient, map[string]string{"role": "client"}),
			pod("other", "client", othClient, map[string]string{"role": "client"}),
		},
	}
	hn := pod("prod", "hostnet", hostNet, map[string]string{"role": "client"})
	hn.HostNetwork = true
	in.Peers = append(in.Peers, hn)
	for _, doc := range policies {
		np := &networkingv1.NetworkPolicy{}
		if err := yaml.UnmarshalStrict([]byte(doc), np); err != nil {
			t.Fatalf("policy %q: %v", doc, err)
		}
		in.Policies = append(in.Policies, np)
	}
	return in
}

func tcp(src, dst string, port uint16) packet { return packet{src, dst, ProtoTCP, port} }
func udp(src, dst string, port uint16) packet { return packet{src, dst, ProtoUDP, port} }
