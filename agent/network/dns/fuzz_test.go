package dns

import (
	"testing"

	mdns "github.com/miekg/dns"
)

// FuzzResolve feeds arbitrary packets through what the server does with a
// query after miekg decodes it: name canonicalisation, the view's lookups
// (CNAME chains, SRV targets, reverse names), the forwarder's refusal with
// no upstreams and truncation. Every reply must pack and carry the query's
// ID. (miekg's own decoder is fuzzed upstream; no other code of this
// package reads the network.)
func FuzzResolve(f *testing.F) {
	for _, q := range []struct {
		name  string
		qtype uint16
	}{
		{"web.shop.svc.cluster.local.", mdns.TypeA},
		{"_sql._tcp.db.shop.svc.cluster.local.", mdns.TypeSRV},
		{"inner.shop.svc.cluster.local.", mdns.TypeANY},
		{"20.0.43.10.in-addr.arpa.", mdns.TypePTR},
		{"example.test.", mdns.TypeA},
	} {
		m := new(mdns.Msg)
		m.SetQuestion(q.name, q.qtype)
		m.SetEdns0(600, true)
		b, err := m.Pack()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	s := New(Config{Timeout: 1})
	s.SetView(Build(fixture(), "cluster.local", 1))
	f.Fuzz(func(t *testing.T, packet []byte) {
		req := new(mdns.Msg)
		if err := req.Unpack(packet); err != nil {
			return
		}
		resp := s.Resolve(t.Context(), req, false)
		resp.Truncate(udpSize(req))
		if resp.Id != req.Id {
			t.Fatalf("reply id %d, query id %d", resp.Id, req.Id)
		}
		if _, err := resp.Pack(); err != nil {
			t.Fatalf("reply does not pack: %v\n%v", err, resp)
		}
	})
}
