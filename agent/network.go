package agent

import (
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/bramble-edge/bramble/agent/network/overlay"
	"github.com/bramble-edge/bramble/agent/network/proxy"
	"github.com/bramble-edge/bramble/mqtt"
)

// Networking defaults (k3s's).
const (
	DefaultNetworkBackend = overlay.BackendVXLAN
	DefaultClusterCIDR    = "10.42.0.0/16"
)

// networkResync is how often the overlay is reconciled even when no Node
// changed, repairing what someone else removed.
const networkResync = time.Minute

func (c *Config) networkDefaults() error {
	switch c.NetworkBackend {
	case "", overlay.BackendVXLAN, overlay.BackendHostGW, overlay.BackendNone:
	default:
		return fmt.Errorf("--network-backend: got %q, want vxlan, host-gw or none", c.NetworkBackend)
	}
	if c.ClusterCIDR == "" {
		c.ClusterCIDR = DefaultClusterCIDR
	}
	if _, n, err := net.ParseCIDR(c.ClusterCIDR); err != nil || n.IP.To4() == nil {
		return fmt.Errorf("--cluster-cidr: got %q, want an IPv4 CIDR such as %s", c.ClusterCIDR, DefaultClusterCIDR)
	}
	return nil
}

// network keeps this node's routes to the other nodes' pods (and the
// masquerade rules) in step with the Nodes in the local store: at start,
// from what the store holds (so after a reboot without the server the
// routes come back), after every change to the Nodes, and every minute.
// Nothing is undone when the agent stops: routes, the vxlan device and
// table inet bramble stay, so pods keep their network while the agent
// restarts; the next start reconciles them (bramble-uninstall removes
// them).
type network struct {
	node    string
	nodeIP  net.IP
	cluster *net.IPNet // the server's (from this node's Node) once known
	bridge  string     // the pod bridge (--cni-bridge)
	backend string
	store   *Store
	log     *slog.Logger
	kick    chan struct{}
	ov      *overlay.Overlay // made once this node has a podCIDR
	own     *net.IPNet       // this node's IPv4 podCIDR once known (its relay address: svcsync.go)
	svc     *proxy.Applier   // the service proxy (svcsync.go), made at its first sync
}

// newNetwork returns nil for the backend none (the user's CNI does it)
// and with DisableOverlay.
func newNetwork(cfg *Config, node, nodeIP string, store *Store) (*network, error) {
	if cfg.NetworkBackend == overlay.BackendNone || cfg.DisableOverlay {
		return nil, nil
	}
	ip := net.ParseIP(nodeIP)
	if ip == nil || ip.To4() == nil {
		return nil, fmt.Errorf("--network-backend %s needs the node's IPv4 address; got %q (set --node-ip)", cfg.NetworkBackend, nodeIP)
	}
	_, cluster, _ := net.ParseCIDR(cfg.ClusterCIDR) // checked by networkDefaults
	return &network{node: node, nodeIP: ip, cluster: cluster, bridge: cfg.CNIBridge, backend: cfg.NetworkBackend, store: store,
		log: cfg.Logger, kick: make(chan struct{}, 1)}, nil
}

// annotations are what the heartbeat puts on this node's Node.
func (n *network) annotations() map[string]string {
	out := map[string]string{mqtt.AnnotationNodeIP: n.nodeIP.String()}
	if n.backend != overlay.BackendHostGW { // vxlan, or the server's choice
		out[mqtt.AnnotationVXLANMAC] = overlay.MACFor(n.node).String()
	}
	return out
}

// changed asks for a reconcile soon; it never blocks.
func (n *network) changed() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}
