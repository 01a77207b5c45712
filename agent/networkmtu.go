package agent

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// vxlanOverhead is what VXLAN adds to every packet (IPv4 outer header, UDP,
// VXLAN header, inner Ethernet): pods' MTU is the uplink's minus it, as
// the overlay's vxlan.1 device's is.
const vxlanOverhead = 50

// podMTU is the MTU of pod interfaces for backend: the uplink's (the
// default route's interface), less the VXLAN overhead with vxlan; 0 (the
// plugin's default) when the uplink is unknown or with backend none.
func podMTU(backend string) int {
	if backend == "none" {
		return 0
	}
	routes, err := os.ReadFile("/proc/net/route")
	if err != nil {
		return 0
	}
	iface := defaultRouteIface(string(routes))
	if iface == "" {
		return 0
	}
	raw, err := os.ReadFile("/sys/class/net/" + iface + "/mtu")
	if err != nil {
		return 0
	}
	mtu, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || mtu < 576 {
		return 0
	}
	if backend == "vxlan" {
		mtu -= vxlanOverhead
	}
	return mtu
}

// defaultRouteIface reads /proc/net/route: the interface of the IPv4
// default route with the lowest metric, "" without one.
func defaultRouteIface(table string) string {
	best, bestMetric := "", -1
	sc := bufio.NewScanner(strings.NewReader(table))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[1] != "00000000" || f[7] != "00000000" {
			continue // not a default route (destination and mask 0)
		}
		metric, err := strconv.Atoi(f[6])
		if err != nil {
			continue
		}
		if bestMetric < 0 || metric < bestMetric {
			best, bestMetric = f[0], metric
		}
	}
	return best
}
