// Package overlay connects the pod networks of the cluster's nodes: a
// route per remote node's podCIDR, through a VXLAN device (`vxlan.1`, VNI
// 1, UDP 8472, as flannel) or, in host-gw mode, straight to the remote
// node's IP; plus the nftables masquerade of pod-to-outside traffic
// (nat.go). It is programmed with netlink from the Node objects the agent
// holds, and Reconcile is idempotent: it makes the kernel match the given
// nodes, removing what belongs to nodes that left.
//
// Everything it creates is recognisable: routes carry the protocol number
// RouteProtocol (`ip route show proto 98`), neighbour and FDB entries live
// on the vxlan device only. Nothing is removed when the agent stops: pods
// keep their network while the agent restarts (Teardown is for
// uninstalling and for switching backends).
package overlay

import (
	"fmt"
	"net"

	"github.com/vishvananda/netlink"
)

// Backends (--network-backend).
const (
	BackendVXLAN  = "vxlan"
	BackendHostGW = "host-gw"
	BackendNone   = "none"
)

// Defaults, flannel's.
const (
	DefaultDevice = "vxlan.1"
	DefaultVNI    = 1
	DefaultPort   = 8472
	// vxlanOverhead is what VXLAN over IPv4 adds to a frame: outer IPv4
	// (20), UDP (8), VXLAN (8) and the inner Ethernet header (14).
	vxlanOverhead = 50
)

// RouteProtocol marks the routes the overlay owns (rtnetlink protocol
// number; 98 is unassigned in iproute2's rt_protos).
const RouteProtocol = netlink.RouteProtocol(98)

// Config is what New needs: NodeIP is required; the zero value of the rest
// gets defaults.
type Config struct {
	// Backend is BackendVXLAN (default) or BackendHostGW.
	Backend string
	// NodeIP is this node's address other nodes reach (the VXLAN tunnel's
	// local end).
	NodeIP net.IP
	// Handle talks to the network namespace to program (tests: another
	// namespace); nil is the agent's own.
	Handle *netlink.Handle
	Device string
	VNI    int
	Port   int
	// MTU of the vxlan device; 0 is the MTU of the interface holding
	// NodeIP minus the VXLAN overhead.
	MTU int
}

// Overlay programs one node's routes to the others.
type Overlay struct {
	cfg Config
	h   *netlink.Handle
}

// New checks cfg and returns an Overlay; nothing is programmed yet.
func New(cfg Config) (*Overlay, error) {
	if cfg.Backend == "" {
		cfg.Backend = BackendVXLAN
	}
	if cfg.Backend != BackendVXLAN && cfg.Backend != BackendHostGW {
		return nil, fmt.Errorf("--network-backend: got %q, want %s or %s (none runs no overlay)",
			cfg.Backend, BackendVXLAN, BackendHostGW)
	}
	if cfg.NodeIP == nil || cfg.NodeIP.To4() == nil {
		return nil, fmt.Errorf("--node-ip: got %v, want the node's IPv4 address", cfg.NodeIP)
	}
	if cfg.Device == "" {
		cfg.Device = DefaultDevice
	}
	if cfg.VNI == 0 {
		cfg.VNI = DefaultVNI
	}
	if cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	h := cfg.Handle
	if h == nil {
		var err error
		if h, err = netlink.NewHandle(); err != nil {
			return nil, fmt.Errorf("netlink: %w", err)
		}
	}
	return &Overlay{cfg: cfg, h: h}, nil
}

// Backend is the backend the overlay runs.
func (o *Overlay) Backend() string { return o.cfg.Backend }

// Device is the vxlan device's name.
func (o *Overlay) Device() string { return o.cfg.Device }
