package nodeinfo

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// addresses returns the node's InternalIP, ExternalIP (externalIP,
// --node-external-ip, when set) and Hostname. nodeIP (--node-ip) wins;
// otherwise the first address of the default route's interface (from
// root/proc/net/route), else the first non-loopback address.
func addresses(root, nodeIP, externalIP string) ([]corev1.NodeAddress, error) {
	ip := nodeIP
	if ip != "" {
		if net.ParseIP(ip) == nil {
			return nil, fmt.Errorf("--node-ip: %q is not an IP address", nodeIP)
		}
	} else {
		route, _ := os.ReadFile(filepath.Join(root, "proc/net/route"))
		ip = pickAddress(defaultRouteInterface(route))
	}
	var out []corev1.NodeAddress
	if ip != "" {
		out = append(out, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip})
	}
	if externalIP != "" {
		if net.ParseIP(externalIP) == nil {
			return nil, fmt.Errorf("--node-external-ip: %q is not an IP address", externalIP)
		}
		out = append(out, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: externalIP})
	}
	if h, err := os.Hostname(); err == nil {
		out = append(out, corev1.NodeAddress{Type: corev1.NodeHostName, Address: strings.ToLower(h)})
	}
	return out, nil
}

// defaultRouteInterface returns the interface of the first IPv4 default
// route in /proc/net/route text, or "".
func defaultRouteInterface(route []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(route))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 8 && f[1] == "00000000" && f[7] == "00000000" {
			return f[0]
		}
	}
	return ""
}

// pickAddress returns the first global unicast address of iface, IPv4
// first; with iface empty or without one, of any interface that is up.
func pickAddress(iface string) string {
	ifs, err := net.Interfaces()
	if err != nil {
		return ""
	}
	var ipv6 string
	for _, pass := range []bool{true, false} {
		for _, it := range ifs {
			if (pass && it.Name != iface) || it.Flags&net.FlagUp == 0 || it.Flags&net.FlagLoopback != 0 {
				continue
			}
			addrs, _ := it.Addrs()
			for _, a := range addrs {
				ipn, ok := a.(*net.IPNet)
				if !ok || !ipn.IP.IsGlobalUnicast() {
					continue
				}
				if ipn.IP.To4() != nil {
					return ipn.IP.String()
				}
				if ipv6 == "" {
					ipv6 = ipn.IP.String()
				}
			}
		}
		if ipv6 != "" {
			return ipv6
		}
	}
	return ""
}
