package dns

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

func TestServerAnswersClusterNames(t *testing.T) {
	s := startServer(t)
	cases := []struct {
		name  string
		qtype uint16
		rcode int
		want  []string
	}{
		{"web.shop.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"A 10.43.0.20"}},
		{"WEB.Shop.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"A 10.43.0.20"}},
		{"web.shop.svc.cluster.local.", mdns.TypeAAAA, mdns.RcodeSuccess, []string{}},
		{"db.shop.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"A 10.42.0.5", "A 10.42.0.6"}},
		{"pub.shop.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"A 10.42.0.8"}},
		{"db-0.db.shop.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"A 10.42.0.5"}},
		{"10-42-0-6.db.shop.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"A 10.42.0.6"}},
		{"db-2.db.shop.svc.cluster.local.", mdns.TypeA, mdns.RcodeNameError, []string{}},
		{"_http._tcp.web.shop.svc.cluster.local.", mdns.TypeSRV, mdns.RcodeSuccess,
			[]string{"SRV 0 100 80 web.shop.svc.cluster.local."}},
		{"_dns._udp.web.shop.svc.cluster.local.", mdns.TypeSRV, mdns.RcodeSuccess,
			[]string{"SRV 0 100 53 web.shop.svc.cluster.local."}},
		{"_sql._tcp.db.shop.svc.cluster.local.", mdns.TypeSRV, mdns.RcodeSuccess, []string{
			"SRV 0 100 5432 db-0.db.shop.svc.cluster.local.",
			"SRV 0 100 5432 10-42-0-6.db.shop.svc.cluster.local."}},
		{"_http._udp.web.shop.svc.cluster.local.", mdns.TypeSRV, mdns.RcodeNameError, []string{}},
		{"20.0.43.10.in-addr.arpa.", mdns.TypePTR, mdns.RcodeSuccess, []string{"PTR web.shop.svc.cluster.local."}},
		{"5.0.42.10.in-addr.arpa.", mdns.TypePTR, mdns.RcodeSuccess, []string{"PTR db-0.db.shop.svc.cluster.local."}},
		{"9.1.42.10.in-addr.arpa.", mdns.TypePTR, mdns.RcodeSuccess, []string{"PTR 10-42-1-9.shop.pod.cluster.local."}},
		{"10-42-1-9.shop.pod.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{"A 10.42.1.9"}},
		{"inner.shop.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess,
			[]string{"CNAME web.shop.svc.cluster.local.", "A 10.43.0.20"}},
		{"ext.shop.svc.cluster.local.", mdns.TypeCNAME, mdns.RcodeSuccess, []string{"CNAME example.test."}},
		{"nope.shop.svc.cluster.local.", mdns.TypeA, mdns.RcodeNameError, []string{}},
		{"web.shop.svc.cluster.local.svc.cluster.local.", mdns.TypeA, mdns.RcodeNameError, []string{}},
		{"shop.svc.cluster.local.", mdns.TypeA, mdns.RcodeSuccess, []string{}},
	}
	for _, c := range cases {
		resp := query(t, s.Addr(), "udp", c.name, c.qtype)
		if resp.Rcode != c.rcode {
			t.Errorf("%s %s: rcode %s, want %s", c.name, mdns.TypeToString[c.qtype],
				mdns.RcodeToString[resp.Rcode], mdns.RcodeToString[c.rcode])
		}
		if got := rdata(resp.Answer); !slices.Equal(got, c.want) {
			t.Errorf("%s %s: got %q, want %q", c.name, mdns.TypeToString[c.qtype], got, c.want)
		}
		if len(resp.Answer) == 0 && (len(resp.Ns) != 1 || resp.Ns[0].Header().Rrtype != mdns.TypeSOA) {
			t.Errorf("%s %s: negative answer without the SOA: %v", c.name, mdns.TypeToString[c.qtype], resp.Ns)
		}
		if !resp.Authoritative {
			t.Errorf("%s: not authoritative", c.name)
		}
	}
}

func TestServerSRVCarriesTargetAddresses(t *testing.T) {
	s := startServer(t)
	resp := query(t, s.Addr(), "tcp", "_sql._tcp.db.shop.svc.cluster.local.", mdns.TypeSRV)
	want := []string{"A 10.42.0.5", "A 10.42.0.6"}
	if got := rdata(resp.Extra); !slices.Equal(got, want) {
		t.Fatalf("additional: got %q, want %q", got, want)
	}
}

func TestServerSwapsView(t *testing.T) {
	s := startServer(t)
	snap := fixture()
	snap.Services[0].Spec.ClusterIPs = []string{"10.43.0.99"}
	s.SetView(Build(snap, "cluster.local", 2))
	resp := query(t, s.Addr(), "udp", "web.shop.svc.cluster.local.", mdns.TypeA)
	if got := rdata(resp.Answer); !slices.Equal(got, []string{"A 10.43.0.99"}) {
		t.Fatalf("after the swap: got %q, want the new address", got)
	}
}

func TestServerOtherDomain(t *testing.T) {
	s := New(Config{Addr: "127.0.0.1:0", Domain: "edge.example"})
	s.SetView(Build(fixture(), "edge.example", 1))
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	resp := query(t, s.Addr(), "udp", "web.shop.svc.edge.example.", mdns.TypeA)
	if got := rdata(resp.Answer); !slices.Equal(got, []string{"A 10.43.0.20"}) {
		t.Fatalf("got %q", got)
	}
	resp = query(t, s.Addr(), "udp", "web.shop.svc.cluster.local.", mdns.TypeA)
	if resp.Rcode != mdns.RcodeServerFailure {
		t.Fatalf("cluster.local with another domain and no upstream: rcode %s, want SERVFAIL", mdns.RcodeToString[resp.Rcode])
	}
}

// TestServerTruncatesLargeClusterAnswers: a headless service with 100
// endpoints does not fit a 512-byte UDP reply: TC is set and TCP (or a
// large enough EDNS0 buffer) gets them all.
func TestServerTruncatesLargeClusterAnswers(t *testing.T) {
	var eps []discoveryv1.Endpoint
	for i := range 100 {
		eps = append(eps, endpoint(fmt.Sprintf("10.42.3.%d", i+1), "", true))
	}
	snap := Snapshot{
		Services:       []*corev1.Service{service("big", "many", corev1.ClusterIPNone)},
		EndpointSlices: []*discoveryv1.EndpointSlice{slice("big", "many", nil, eps...)},
	}
	s := New(Config{Addr: "127.0.0.1:0"})
	s.SetView(Build(snap, "cluster.local", 1))
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	const name = "many.big.svc.cluster.local."
	if resp := query(t, s.Addr(), "udp", name, mdns.TypeA); !resp.Truncated || len(resp.Answer) >= 100 {
		t.Fatalf("UDP: truncated %v with %d answers, want TC and fewer than 100", resp.Truncated, len(resp.Answer))
	}
	if resp := query(t, s.Addr(), "tcp", name, mdns.TypeA); resp.Truncated || len(resp.Answer) != 100 {
		t.Fatalf("TCP: truncated %v with %d answers, want all 100", resp.Truncated, len(resp.Answer))
	}
	m := new(mdns.Msg)
	m.SetQuestion(name, mdns.TypeA)
	m.SetEdns0(4096, false)
	resp, _, err := (&mdns.Client{Net: "udp", UDPSize: 4096}).Exchange(m, s.Addr())
	if err != nil {
		t.Fatalf("UDP with EDNS0 4096: %v", err) // resp is nil: reading it would panic
	}
	if resp.Truncated || len(resp.Answer) != 100 || resp.IsEdns0() == nil {
		t.Fatalf("UDP with EDNS0 4096: truncated %v, %d answers, OPT %v", resp.Truncated, len(resp.Answer), resp.IsEdns0())
	}
}

func TestServerAnswersIPv6ClusterIPs(t *testing.T) {
	svc := service("v6", "dual", "10.43.0.30")
	svc.Spec.ClusterIPs = []string{"10.43.0.30", "fd00:43::30"}
	s := New(Config{Addr: "127.0.0.1:0"})
	s.SetView(Build(Snapshot{Services: []*corev1.Service{svc}}, "cluster.local", 1))
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	resp := query(t, s.Addr(), "udp", "dual.v6.svc.cluster.local.", mdns.TypeAAAA)
	if got := rdata(resp.Answer); !slices.Equal(got, []string{"AAAA fd00:43::30"}) {
		t.Fatalf("AAAA: got %q", got)
	}
	resp = query(t, s.Addr(), "udp", "0.3.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.3.4.0.0.0.0.d.f.ip6.arpa.", mdns.TypePTR)
	if got := rdata(resp.Answer); !slices.Equal(got, []string{"PTR dual.v6.svc.cluster.local."}) {
		t.Fatalf("PTR: got %q", got)
	}
}

// TestActivateReturnsWhenServingFails: a miekg server that fails before
// serving (here: no socket at all) never calls NotifyStartedFunc; Start
// must return its error, not wait forever.
func TestActivateReturnsWhenServingFails(t *testing.T) {
	s := New(Config{Addr: "127.0.0.1:0"})
	done := make(chan error, 1)
	go func() { done <- s.activate(&mdns.Server{Handler: s}) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "bad listeners") {
			t.Fatalf("got %v, want miekg's bad listeners error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("activate still waits for a server that failed before serving")
	}
	s.wg.Wait()
}
