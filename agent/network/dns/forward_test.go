package dns

import (
	"fmt"
	"net"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
)

// upstream is a test resolver on loopback: example.test A 192.0.2.1 (TTL
// 60), big.test with 60 A records (too large for 512 bytes), NXDOMAIN for
// the rest. It counts the questions it gets per protocol.
type upstream struct {
	addr     string
	udp, tcp atomic.Int64
}

func startUpstream(t testing.TB) *upstream {
	t.Helper()
	u := &upstream{}
	pc, ln, err := listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u.addr = pc.LocalAddr().String()
	for _, srv := range []*mdns.Server{{PacketConn: pc, Handler: u}, {Listener: ln, Handler: u}} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		go func() { _ = srv.ActivateAndServe() }()
		<-started
		t.Cleanup(func() { _ = srv.Shutdown() })
	}
	return u
}

func (u *upstream) ServeDNS(w mdns.ResponseWriter, req *mdns.Msg) {
	_, tcp := w.RemoteAddr().(*net.TCPAddr)
	if tcp {
		u.tcp.Add(1)
	} else {
		u.udp.Add(1)
	}
	resp := new(mdns.Msg)
	resp.SetReply(req)
	switch mdns.CanonicalName(req.Question[0].Name) {
	case "example.test.":
		resp.Answer = append(resp.Answer, mustRR("example.test. 60 IN A 192.0.2.1"))
	case "big.test.":
		for i := range 60 {
			resp.Answer = append(resp.Answer, mustRR(fmt.Sprintf("big.test. 60 IN A 198.51.100.%d", i+1)))
		}
	default:
		resp.Rcode = mdns.RcodeNameError
		resp.Ns = append(resp.Ns, mustRR("test. 300 IN SOA ns.test. h.test. 1 2 3 4 30"))
	}
	if !tcp {
		resp.Truncate(udpSize(req))
	}
	_ = w.WriteMsg(resp)
}

func mustRR(s string) mdns.RR {
	rr, err := mdns.NewRR(s)
	if err != nil {
		panic(err)
	}
	return rr
}

func TestForwardsOtherNamesAndCaches(t *testing.T) {
	up := startUpstream(t)
	s := startServer(t, up.addr)
	for range 3 {
		resp := query(t, s.Addr(), "udp", "example.test.", mdns.TypeA)
		if got := rdata(resp.Answer); !slices.Equal(got, []string{"A 192.0.2.1"}) {
			t.Fatalf("forwarded: got %q", got)
		}
		if ttl := resp.Answer[0].Header().Ttl; ttl > 60 || ttl < 58 {
			t.Fatalf("ttl %d, want about 60", ttl)
		}
	}
	if n := up.udp.Load(); n != 1 {
		t.Fatalf("upstream asked %d times, want 1 (the cache answers the rest)", n)
	}
	resp := query(t, s.Addr(), "udp", "missing.test.", mdns.TypeA)
	if resp.Rcode != mdns.RcodeNameError || len(resp.Ns) != 1 {
		t.Fatalf("forwarded NXDOMAIN: %v", resp)
	}
	_ = query(t, s.Addr(), "udp", "missing.test.", mdns.TypeA)
	if n := up.udp.Load(); n != 2 {
		t.Fatalf("upstream asked %d times, want 2 (NXDOMAIN cached too)", n)
	}
}

func TestForwardsUnknownReverseNames(t *testing.T) {
	up := startUpstream(t)
	s := startServer(t, up.addr)
	resp := query(t, s.Addr(), "udp", "1.2.0.192.in-addr.arpa.", mdns.TypePTR)
	if resp.Rcode != mdns.RcodeNameError || up.udp.Load() != 1 {
		t.Fatalf("unknown PTR: rcode %s, upstream asked %d times", mdns.RcodeToString[resp.Rcode], up.udp.Load())
	}
}

func TestForwardTruncationAndTCP(t *testing.T) {
	up := startUpstream(t)
	s := startServer(t, up.addr)
	resp := query(t, s.Addr(), "udp", "big.test.", mdns.TypeA)
	if !resp.Truncated || len(resp.Answer) >= 60 {
		t.Fatalf("UDP without EDNS0: truncated %v with %d answers, want TC and fewer", resp.Truncated, len(resp.Answer))
	}
	if up.tcp.Load() != 1 {
		t.Fatalf("upstream asked over TCP %d times, want 1 (after its truncated UDP answer)", up.tcp.Load())
	}
	resp = query(t, s.Addr(), "tcp", "big.test.", mdns.TypeA)
	if resp.Truncated || len(resp.Answer) != 60 {
		t.Fatalf("over TCP: truncated %v with %d answers, want all 60", resp.Truncated, len(resp.Answer))
	}
}

func TestExternalNameChasesUpstream(t *testing.T) {
	up := startUpstream(t)
	s := startServer(t, up.addr)
	resp := query(t, s.Addr(), "udp", "ext.shop.svc.cluster.local.", mdns.TypeA)
	want := []string{"CNAME example.test.", "A 192.0.2.1"}
	if got := rdata(resp.Answer); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestForwardFallsToNextUpstream(t *testing.T) {
	up := startUpstream(t)
	dead, err := net.ListenPacket("udp", "127.0.0.1:0") // answers nothing
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	f := NewForwarder([]string{dead.LocalAddr().String(), up.addr}, 200*time.Millisecond, nil)
	req := new(mdns.Msg)
	req.SetQuestion("example.test.", mdns.TypeA)
	resp, err := f.Exchange(t.Context(), req, false)
	if err != nil || len(resp.Answer) != 1 || resp.Id != req.Id {
		t.Fatalf("got %v, %v; want the second upstream's answer under the question's id", resp, err)
	}
}
