package pki

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// sanSet is the names of a serving certificate, normalised: DNS names in
// lowercase, IPs in their canonical text form; both sorted, no duplicates.
type sanSet struct {
	dns []string
	ips []string
}

func (s *sanSet) add(name string) {
	if ip := net.ParseIP(name); ip != nil {
		s.ips = append(s.ips, ip.String())
	} else {
		s.dns = append(s.dns, strings.ToLower(name))
	}
}

func (s *sanSet) normalise() {
	slices.Sort(s.dns)
	s.dns = slices.Compact(s.dns)
	slices.Sort(s.ips)
	s.ips = slices.Compact(s.ips)
}

func (s sanSet) equal(o sanSet) bool {
	return slices.Equal(s.dns, o.dns) && slices.Equal(s.ips, o.ips)
}

// parseSANs checks the --tls-san values: each an IP address or a DNS name
// (a leading "*." wildcard allowed).
func parseSANs(names []string) (sanSet, error) {
	var s sanSet
	for _, n := range names {
		if net.ParseIP(n) == nil {
			if msgs := validation.IsDNS1123Subdomain(strings.TrimPrefix(strings.ToLower(n), "*.")); len(msgs) > 0 {
				return sanSet{}, fmt.Errorf("--tls-san %q: not an IP address or DNS name: %s", n, strings.Join(msgs, "; "))
			}
		}
		s.add(n)
	}
	return s, nil
}

// wantedSANs are the extra names plus the machine's: its hostname,
// localhost, the loopback addresses and every non-loopback interface
// address (IPv6 link-local ones left out: unusable without a zone).
func (p *PKI) wantedSANs(extra sanSet) (sanSet, error) {
	s := sanSet{dns: slices.Clone(extra.dns), ips: slices.Clone(extra.ips)}
	host, err := p.cfg.Hostname()
	if err != nil {
		return sanSet{}, fmt.Errorf("read hostname: %w", err)
	}
	if host != "" {
		s.add(host)
	}
	s.add("localhost")
	s.add("127.0.0.1")
	s.add("::1")
	addrs, err := p.cfg.InterfaceAddrs()
	if err != nil {
		return sanSet{}, fmt.Errorf("list interface addresses: %w", err)
	}
	for _, a := range addrs {
		ipnet, ok := a.(*net.IPNet)
		if !ok || ipnet.IP.IsLoopback() || (ipnet.IP.To4() == nil && ipnet.IP.IsLinkLocalUnicast()) {
			continue
		}
		s.add(ipnet.IP.String())
	}
	s.normalise()
	return s, nil
}

func certSANs(c *x509.Certificate) sanSet {
	var s sanSet
	for _, d := range c.DNSNames {
		s.add(d)
	}
	for _, ip := range c.IPAddresses {
		s.add(ip.String())
	}
	s.normalise()
	return s
}

// ensureServing keeps serving.crt/.key current for the wanted names.
func (p *PKI) ensureServing(extra sanSet) error {
	want, err := p.wantedSANs(extra)
	if err != nil {
		return err
	}
	fits := func(c *x509.Certificate) bool { return certSANs(c).equal(want) }
	kp, err := p.ensureLeaf("serving", fits, func() (keyPair, error) {
		tmpl := &x509.Certificate{
			Subject:     pkix.Name{CommonName: "bramble"},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			DNSNames:    want.dns,
		}
		for _, ip := range want.ips {
			tmpl.IPAddresses = append(tmpl.IPAddresses, net.ParseIP(ip))
		}
		return p.issueWithKey(tmpl, leafValidity)
	})
	if err != nil {
		return err
	}
	pair, err := tls.X509KeyPair(kp.certPEM, kp.keyPEM)
	if err != nil {
		return fmt.Errorf("load serving certificate: %w", err)
	}
	p.serving = pair
	return nil
}
