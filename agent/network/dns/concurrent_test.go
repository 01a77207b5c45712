package dns

import (
	"fmt"
	"sync"
	"testing"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// TestConcurrentQueriesShareRecords: every answer about one name hands out
// the same record objects of the view (and negative answers the view's one
// SOA), so concurrent replies pack them at once. Run under -race, this
// shows packing and truncation only read them: clients over UDP (truncated
// to 512 bytes), UDP with EDNS0 and TCP ask for the same names at the same
// time, and each must get its whole, correct answer.
func TestConcurrentQueriesShareRecords(t *testing.T) {
	snap := fixture()
	var eps []discoveryv1.Endpoint
	for i := range 60 {
		eps = append(eps, endpoint(fmt.Sprintf("10.42.3.%d", i+1), "", true))
	}
	snap.Services = append(snap.Services, service("big", "many", corev1.ClusterIPNone))
	snap.EndpointSlices = append(snap.EndpointSlices, slice("big", "many", nil, eps...))
	s := New(Config{Addr: "127.0.0.1:0"})
	s.SetView(Build(snap, "cluster.local", 1))
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	var wg sync.WaitGroup
	for client := range 6 {
		wg.Go(func() {
			for range 15 {
				askShared(t, s.Addr(), []string{"udp", "udp-edns", "tcp"}[client%3])
			}
		})
	}
	wg.Wait()
}

// askShared asks addr over network for names whose records the view
// shares and checks the number of records in each answer.
func askShared(t *testing.T, addr, network string) {
	t.Helper()
	for _, q := range []struct {
		name        string
		qtype       uint16
		answer, ns  int
		truncatable bool
	}{
		{"many.big.svc.cluster.local.", mdns.TypeA, 60, 0, true},
		{"_sql._tcp.db.shop.svc.cluster.local.", mdns.TypeSRV, 2, 0, false},
		{"nope.shop.svc.cluster.local.", mdns.TypeA, 0, 1, false},
		{"5.0.42.10.in-addr.arpa.", mdns.TypePTR, 1, 0, false},
	} {
		m := new(mdns.Msg)
		m.SetQuestion(q.name, q.qtype)
		c := &mdns.Client{Net: network}
		if network == "udp-edns" {
			c.Net = "udp"
			m.SetEdns0(4096, false)
		}
		resp, _, err := c.Exchange(m, addr)
		if err != nil {
			t.Errorf("%s over %s: %v", q.name, network, err)
			return
		}
		if q.truncatable && network == "udp" {
			if !resp.Truncated || len(resp.Answer) == 0 || len(resp.Answer) >= q.answer {
				t.Errorf("%s over udp: truncated %v with %d answers, want TC and 1-%d", q.name, resp.Truncated, len(resp.Answer), q.answer-1)
			}
			continue
		}
		if resp.Truncated || len(resp.Answer) != q.answer || len(resp.Ns) != q.ns {
			t.Errorf("%s over %s: truncated %v, %d answers and %d authority records, want %d and %d",
				q.name, network, resp.Truncated, len(resp.Answer), len(resp.Ns), q.answer, q.ns)
		}
	}
}
