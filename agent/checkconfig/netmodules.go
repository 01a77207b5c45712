package checkconfig

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/bramble-edge/bramble/agent/network/nft"
)

// kernelModule is one kernel feature pod networking needs.
type kernelModule struct {
	name   string   // module name (modprobe NAME)
	path   string   // its path under lib/modules/<release>/ (modules.dep, modules.builtin)
	signs  []string // files that exist only while it is present (loaded or built in)
	config string   // the kernel option that builds it
	needs  string   // what breaks without it
	status Status   // the status when it is missing
}

var netModules = []kernelModule{
	{name: "bridge", path: "kernel/net/bridge/bridge.ko", signs: []string{"sys/module/bridge"},
		config: "CONFIG_BRIDGE", needs: "the pod bridge cni0", status: Fail},
	{name: "br_netfilter", path: "kernel/net/bridge/br_netfilter.ko",
		signs: []string{"sys/module/br_netfilter", "proc/sys/net/bridge"}, config: "CONFIG_BRIDGE_NETFILTER",
		needs: "NetworkPolicy between pods of one node (bridged traffic must reach nftables)", status: Warn},
	{name: "vxlan", path: "kernel/drivers/net/vxlan/vxlan.ko", signs: []string{"sys/module/vxlan"},
		config: "CONFIG_VXLAN", needs: "the default vxlan backend (--network-backend host-gw or none work without it)", status: Warn},
	{name: "nf_tables", path: "kernel/net/netfilter/nf_tables.ko", signs: []string{"sys/module/nf_tables"},
		config: "CONFIG_NF_TABLES", needs: "masquerade, NetworkPolicy and services (table inet bramble)", status: Fail},
}

// checkNetModules checks each module: loaded or built in is ok; present on
// disk but not loaded says how to load it; absent says what is missing.
// probeNFT, when set, asks the running kernel for nftables directly (a
// built-in nf_tables leaves no sign under /sys/module).
func checkNetModules(root string, probeNFT func() error) []Check {
	rel, _ := readFile(root, "proc/sys/kernel/osrelease")
	dir := "lib/modules/" + strings.TrimSpace(string(rel)) + "/"
	builtin, _ := readFile(root, dir+"modules.builtin")
	dep, _ := readFile(root, dir+"modules.dep")
	var out []Check
	for _, m := range netModules {
		present := listsModule(builtin, m.path)
		for _, s := range m.signs {
			present = present || exists(root, s)
		}
		if m.name == "nf_tables" && !present && probeNFT != nil {
			present = probeNFT() == nil
		}
		out = append(out, m.check(present, listsModule(dep, m.path), dir))
	}
	return append(out, checkBridgeNF(root))
}

// check says what to do about m: nothing when present, load it when it is
// on disk, get a kernel with it otherwise.
func (m kernelModule) check(present, onDisk bool, dir string) Check {
	c := Check{Name: "module " + m.name}
	switch {
	case present:
		c.Status, c.Message = OK, "present"
	case onDisk:
		c.Status = Warn
		c.Message = fmt.Sprintf("not loaded, needed for %s; the agent does not load modules, run:\n"+
			"modprobe %s && echo %s >> /etc/modules-load.d/bramble.conf", m.needs, m.name, m.name)
	default:
		c.Status = m.status
		c.Message = fmt.Sprintf("missing (not loaded, not built in, no module under /%s), needed for %s: "+
			"use a kernel with %s", dir, m.needs, m.config)
	}
	return c
}

// listsModule reports whether a modules.builtin or modules.dep text names
// the module at path (compressed or not).
func listsModule(list []byte, path string) bool {
	for _, line := range bytes.Split(list, []byte("\n")) {
		name, _, _ := strings.Cut(string(line), ":")
		if name == path || strings.HasPrefix(name, path+".") {
			return true
		}
	}
	return false
}

// checkBridgeNF: with br_netfilter loaded, bridged pod traffic reaches
// nftables only when bridge-nf-call-iptables is 1.
func checkBridgeNF(root string) Check {
	c := Check{Name: "bridge-nf-call-iptables"}
	b, err := readFile(root, "proc/sys/net/bridge/bridge-nf-call-iptables")
	switch {
	case err != nil:
		c.Status, c.Message = Warn, "unknown (br_netfilter not loaded)"
	case strings.TrimSpace(string(b)) == "1":
		c.Status, c.Message = OK, "1"
	default:
		c.Status = Warn
		c.Message = "0: NetworkPolicy cannot see traffic between pods of one node; run:\n" +
			"sysctl -w net.bridge.bridge-nf-call-iptables=1"
	}
	return c
}

// probeNFT lists the nftables tables of this network namespace.
func probeNFT() error {
	c, err := nft.Open(-1)
	if err != nil {
		return err
	}
	return c.Probe()
}
