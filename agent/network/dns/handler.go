package dns

import (
	"context"
	"net"

	mdns "github.com/miekg/dns"
)

// ServeDNS answers one query: the cluster zone and known reverse names
// from the view, the rest through the forwarder. Replies too large for a
// UDP client are truncated (TC set) so it asks again over TCP.
func (s *Server) ServeDNS(w mdns.ResponseWriter, req *mdns.Msg) {
	_, overTCP := w.RemoteAddr().(*net.TCPAddr)
	resp := s.Resolve(context.Background(), req, overTCP)
	if !overTCP {
		resp.Truncate(udpSize(req))
	}
	if err := w.WriteMsg(resp); err != nil {
		s.cfg.Log.Debug("cluster dns: reply not written", "name", questionName(req), "err", err)
	}
}

// questionName is the name req asks about ("" when it asks none).
func questionName(req *mdns.Msg) string {
	if len(req.Question) == 0 {
		return ""
	}
	return req.Question[0].Name
}

// Resolve builds the reply to req.
func (s *Server) Resolve(ctx context.Context, req *mdns.Msg, overTCP bool) *mdns.Msg {
	if req.Opcode != mdns.OpcodeQuery || len(req.Question) != 1 {
		return failure(req, mdns.RcodeNotImplemented)
	}
	q := req.Question[0]
	name := canonical(q.Name)
	v := s.view.Load()
	if q.Qclass == mdns.ClassINET && v.InZone(name) {
		return s.local(ctx, req, v.Lookup(name, q.Qtype), overTCP)
	}
	if q.Qtype == mdns.TypePTR && q.Qclass == mdns.ClassINET {
		if rr, ok := v.LookupPTR(name); ok {
			return s.local(ctx, req, Answer{Answer: []mdns.RR{rr}}, overTCP)
		}
	}
	resp, err := s.fwd.Exchange(ctx, req, overTCP)
	if err != nil {
		s.cfg.Log.Debug("cluster dns: forward failed", "name", q.Name, "err", err)
		return failure(req, mdns.RcodeServerFailure)
	}
	return resp
}

// local writes the view's answer, completing a CNAME that leaves the zone
// with the upstream's records for its target.
func (s *Server) local(ctx context.Context, req *mdns.Msg, a Answer, overTCP bool) *mdns.Msg {
	resp := new(mdns.Msg)
	resp.SetRcode(req, a.Rcode)
	resp.Authoritative = true
	resp.RecursionAvailable = true
	resp.Answer, resp.Ns, resp.Extra = a.Answer, a.Ns, a.Extra
	if a.Chase != "" {
		s.chase(ctx, req, resp, a.Chase, overTCP)
	}
	if o := req.IsEdns0(); o != nil {
		resp.SetEdns0(uint16(udpSize(req)), false)
	}
	return resp
}

// chase asks the upstreams for target (same type as the question) and
// appends their answer; their failure becomes the reply's.
func (s *Server) chase(ctx context.Context, req, resp *mdns.Msg, target string, overTCP bool) {
	q := new(mdns.Msg)
	q.SetQuestion(target, req.Question[0].Qtype)
	q.RecursionDesired = true
	up, err := s.fwd.Exchange(ctx, q, overTCP)
	if err != nil {
		resp.Rcode = mdns.RcodeServerFailure
		return
	}
	resp.Answer = append(resp.Answer, up.Answer...)
	resp.Rcode = up.Rcode
	if len(up.Answer) == 0 {
		resp.Ns = up.Ns
	}
}

func failure(req *mdns.Msg, rcode int) *mdns.Msg {
	resp := new(mdns.Msg)
	resp.SetRcode(req, rcode)
	resp.RecursionAvailable = true
	return resp
}

// udpSize is the largest UDP reply the client takes: its EDNS0 buffer, or
// 512 bytes without EDNS0.
func udpSize(req *mdns.Msg) int {
	if o := req.IsEdns0(); o != nil {
		return int(max(o.UDPSize(), mdns.MinMsgSize))
	}
	return mdns.MinMsgSize
}
