package dns

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
)

// HostConfig is what a resolv.conf file says: nameservers, search domains
// (trailing dots dropped, as the kubelet does) and options.
type HostConfig struct {
	Nameservers []string
	Searches    []string
	Options     []string
}

// Default paths of the node's resolver configuration.
const (
	EtcResolvConf     = "/etc/resolv.conf"
	SystemdResolvConf = "/run/systemd/resolve/resolv.conf"
)

// ParseHostConfig reads resolv.conf syntax: "nameserver", "search" (the
// last line wins), "options" (accumulated); comments and other keywords
// are ignored, as by the C resolver.
func ParseHostConfig(r io.Reader) (HostConfig, error) {
	var h HostConfig
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexAny(line, "#;"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "nameserver":
			h.Nameservers = append(h.Nameservers, f[1])
		case "search":
			h.Searches = h.Searches[:0]
			for _, s := range f[1:] {
				h.Searches = append(h.Searches, strings.TrimSuffix(s, "."))
			}
		case "options":
			h.Options = append(h.Options, f[1:]...)
		}
	}
	return h, sc.Err()
}

// ReadHostConfig parses the file at path.
func ReadHostConfig(path string) (HostConfig, error) {
	f, err := os.Open(path)
	if err != nil {
		return HostConfig{}, fmt.Errorf("read resolv.conf %s: %w", path, err)
	}
	defer f.Close()
	h, err := ParseHostConfig(f)
	if err != nil {
		return HostConfig{}, fmt.Errorf("read resolv.conf %s: %w", path, err)
	}
	return h, nil
}

// ChooseResolvConf is the file whose resolvers the node uses: flag when
// set (--resolv-conf); else etc, unless it names only systemd-resolved's
// stub (127.0.0.53), where pods and the forwarder would loop, and the real
// upstreams' file systemd exists: then that one (as the kubelet is told to
// on such hosts, and k3s does by itself).
func ChooseResolvConf(flag, etc, systemd string) string {
	if flag != "" {
		return flag
	}
	h, err := ReadHostConfig(etc)
	if err != nil || len(h.Nameservers) == 0 {
		return etc
	}
	for _, ns := range h.Nameservers {
		if ns != "127.0.0.53" {
			return etc
		}
	}
	if _, err := os.Stat(systemd); err != nil {
		return etc
	}
	return systemd
}

// Upstreams are the nameservers as "ip:53" dial addresses, leaving out
// entries that are not IP addresses and the server's own address (a loop).
func (h HostConfig) Upstreams(self string) []string {
	var out []string
	for _, ns := range h.Nameservers {
		ip, err := netip.ParseAddr(ns)
		if err != nil {
			continue
		}
		addr := net.JoinHostPort(ip.String(), "53")
		if addr == self {
			continue
		}
		out = append(out, addr)
	}
	return out
}
