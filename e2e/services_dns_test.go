package e2e

import (
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
	"golang.org/x/sys/unix"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

// startUpstreamDNS serves one A record, name -> addr, on port 53 (UDP) of
// namespace n's address, and counts the questions it gets. The agents'
// cluster DNS forwards names outside the cluster to it (--resolv-conf); it
// cannot live on the bridge's host address, which is the server's, and
// the server's address is never an upstream.
func startUpstreamDNS(t *testing.T, n *cluster.Netns, name, addr string) *atomic.Int64 {
	t.Helper()
	pc, err := listenUDPIn(n.Path, net.JoinHostPort(n.Addr.String(), "53"))
	if err != nil {
		t.Fatalf("upstream DNS in %s: %v", n.Name, err)
	}
	queries := new(atomic.Int64)
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		queries.Add(1)
		m := new(dns.Msg)
		m.SetReply(q)
		if len(q.Question) == 1 && q.Question[0].Name == dns.Fqdn(name) && q.Question[0].Qtype == dns.TypeA {
			m.Answer = []dns.RR{&dns.A{
				Hdr: dns.RR_Header{Name: dns.Fqdn(name), Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 30},
				A:   net.ParseIP(addr),
			}}
		} else if len(q.Question) != 1 || q.Question[0].Name != dns.Fqdn(name) {
			m.Rcode = dns.RcodeNameError
		}
		_ = w.WriteMsg(m)
	})}
	go func() { _ = srv.ActivateAndServe() }()
	t.Cleanup(func() { _ = srv.Shutdown() })
	return queries
}

// listenUDPIn opens a UDP socket inside the network namespace at nsPath: a
// socket stays in the namespace it was made in. The thread that entered
// the namespace is never unlocked, so Go ends it with its goroutine.
func listenUDPIn(nsPath, addr string) (net.PacketConn, error) {
	type result struct {
		pc  net.PacketConn
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open(nsPath)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- result{err: err}
			return
		}
		pc, err := net.ListenPacket("udp4", addr)
		done <- result{pc, err}
	}()
	r := <-done
	return r.pc, r.err
}
