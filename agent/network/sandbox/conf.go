package sandbox

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"

	"github.com/containernetworking/cni/libcni"
)

// Names of the CNI networks and the conflist bramble writes.
const (
	NetworkName  = "bramble"
	ConfFileName = "10-bramble.conflist"
	cniVersion   = "1.0.0"
	podIfName    = "eth0"
)

// bridgeConf is bramble's network: a bridge with host-local addresses
// from the node's pod range, hostPorts through portmap and the bandwidth
// annotations through bandwidth. No masquerade here: the overlay's
// nftables rules masquerade pod traffic leaving the cluster.
func bridgeConf(bridge string, podCIDR netip.Prefix, ipamDir string, mtu int) ([]byte, error) {
	if !podCIDR.IsValid() {
		return nil, fmt.Errorf("pod CIDR: none")
	}
	br := map[string]any{
		"type": "bridge", "bridge": bridge, "isGateway": true, "ipMasq": false, "hairpinMode": true,
		"ipam": map[string]any{
			"type":    "host-local",
			"ranges":  [][]map[string]string{{{"subnet": podCIDR.Masked().String()}}},
			"routes":  []map[string]string{{"dst": "0.0.0.0/0"}},
			"dataDir": ipamDir,
		},
	}
	if mtu > 0 {
		br["mtu"] = mtu
	}
	return json.MarshalIndent(map[string]any{
		"cniVersion": cniVersion, "name": NetworkName,
		"plugins": []map[string]any{
			br,
			{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
			{"type": "bandwidth", "capabilities": map[string]bool{"bandwidth": true}},
		},
	}, "", "  ")
}

// loopbackList brings up lo in every pod's namespace; it is no file, so a
// user's own CNI config (--network-backend none) gets it too.
func loopbackList() *libcni.NetworkConfigList {
	l, err := libcni.ConfListFromBytes([]byte(`{"cniVersion":"` + cniVersion + `","name":"bramble-loopback","plugins":[{"type":"loopback"}]}`))
	if err != nil {
		panic(err) // a constant
	}
	return l
}

// writeConf writes data to dir/name atomically, leaving it alone when it
// is unchanged.
func writeConf(dir, name string, data []byte) error {
	path := filepath.Join(dir, name)
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// loadConfList reads the first network config of dir in name order, as
// kubelet does: bramble's own, or the user's with --network-backend none.
func loadConfList(dir string) (*libcni.NetworkConfigList, error) {
	files, err := libcni.ConfFiles(dir, []string{".conflist", ".conf", ".json"})
	if err != nil {
		return nil, fmt.Errorf("read CNI config folder %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: no CNI config in %s", ErrNoConfig, dir)
	}
	sort.Strings(files)
	f := files[0]
	if filepath.Ext(f) == ".conflist" {
		l, err := libcni.ConfListFromFile(f)
		if err != nil {
			return nil, fmt.Errorf("CNI config %s: %w", f, err)
		}
		return l, nil
	}
	c, err := libcni.ConfFromFile(f)
	if err != nil {
		return nil, fmt.Errorf("CNI config %s: %w", f, err)
	}
	l, err := libcni.ConfListFromConf(c)
	if err != nil {
		return nil, fmt.Errorf("CNI config %s: %w", f, err)
	}
	return l, nil
}
