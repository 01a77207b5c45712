package dns

import (
	"strings"

	mdns "github.com/miekg/dns"
)

// Answer is the View's reply to one question about the cluster zone.
type Answer struct {
	Rcode  int
	Answer []mdns.RR
	Ns     []mdns.RR
	Extra  []mdns.RR
	// Chase is the CNAME target outside the cluster zone whose records
	// complete the answer (an ExternalName service); empty otherwise.
	Chase string
}

// InZone reports whether name (lower case, fully qualified) belongs to the
// cluster domain.
func (v *View) InZone(name string) bool {
	return mdns.IsSubDomain(v.domain, name)
}

// Lookup answers a question about a name in the cluster zone: its records
// of the type asked, NODATA (no error, SOA) when the name exists without
// them, NXDOMAIN with the SOA when it does not exist. A CNAME is followed
// while it stays in the zone.
func (v *View) Lookup(name string, qtype uint16) Answer {
	var a Answer
	for hops := 0; hops < 8; hops++ {
		n, ok := v.names[name]
		if !ok {
			a.Rcode, a.Ns = mdns.RcodeNameError, []mdns.RR{v.soa}
			return a
		}
		cname := firstOfType(n.rrs, mdns.TypeCNAME)
		if cname == nil || qtype == mdns.TypeCNAME {
			a.Answer = append(a.Answer, ofType(n.rrs, qtype)...)
			break
		}
		a.Answer = append(a.Answer, cname)
		name = cname.(*mdns.CNAME).Target
		if !v.InZone(name) {
			a.Chase = name
			return a
		}
	}
	if len(a.Answer) == 0 {
		a.Ns = []mdns.RR{v.soa}
	}
	if qtype == mdns.TypeSRV {
		a.Extra = v.targets(a.Answer)
	}
	return a
}

// LookupPTR is the PTR record of a reverse name for a service, endpoint or
// pod address, if the view has one.
func (v *View) LookupPTR(name string) (mdns.RR, bool) {
	rr, ok := v.ptr[name]
	return rr, ok
}

// targets are the address records of SRV targets, for the additional
// section.
func (v *View) targets(srvs []mdns.RR) []mdns.RR {
	var out []mdns.RR
	seen := map[string]bool{}
	for _, rr := range srvs {
		srv, ok := rr.(*mdns.SRV)
		if !ok || seen[srv.Target] {
			continue
		}
		seen[srv.Target] = true
		if n, ok := v.names[srv.Target]; ok {
			out = append(out, ofType(n.rrs, mdns.TypeA)...)
			out = append(out, ofType(n.rrs, mdns.TypeAAAA)...)
		}
	}
	return out
}

func ofType(rrs []mdns.RR, qtype uint16) []mdns.RR {
	var out []mdns.RR
	for _, rr := range rrs {
		if qtype == mdns.TypeANY || rr.Header().Rrtype == qtype {
			out = append(out, rr)
		}
	}
	return out
}

func firstOfType(rrs []mdns.RR, t uint16) mdns.RR {
	for _, rr := range rrs {
		if rr.Header().Rrtype == t {
			return rr
		}
	}
	return nil
}

// canonical is a query name as the view keys it.
func canonical(name string) string {
	return strings.ToLower(mdns.Fqdn(name))
}
