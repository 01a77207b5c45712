// Package servicealloc gives Services their ClusterIPs, from the service
// CIDR, and their NodePorts, from the node port range, as admission of
// the registry (registry.Admitter). An address or port asked for by hand
// is honoured when free; a clash is refused with upstream's 422. What a
// failed write reserved is given back at once; what a deleted Service
// held is found free again when asked for (the holder is read back) or
// when a range runs full (the stored Services are listed again). The
// allocations are rebuilt from the stored Services at start.
//
// One allocator serves one server: servers sharing etcd each keep their
// own, so two of them may hand out one address at the same moment.
package servicealloc

import (
	"context"
	"fmt"
	"net/netip"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// k3s's defaults.
const (
	DefaultServiceCIDR = "10.43.0.0/16"
	DefaultNodePorts   = "30000-32767"
)

// Config picks the ranges; zero values get the defaults.
type Config struct {
	ServiceCIDR netip.Prefix
	NodePorts   PortRange
}

// Allocator is the admission plugin that allocates for Services.
type Allocator struct {
	reg   *registry.Registry
	cidr  netip.Prefix
	ports PortRange

	mu      sync.Mutex
	ips     *pool // offsets into cidr
	nodes   *pool // port numbers
	commits uint64
}

var _ registry.Admitter = (*Allocator)(nil)

// New checks cfg; call Load before the registry serves writes.
func New(reg *registry.Registry, cfg Config) (*Allocator, error) {
	if !cfg.ServiceCIDR.IsValid() {
		cfg.ServiceCIDR = netip.MustParsePrefix(DefaultServiceCIDR)
	}
	if cfg.NodePorts.Size == 0 {
		cfg.NodePorts, _ = ParsePortRange(DefaultNodePorts)
	}
	if err := checkCIDR(cfg.ServiceCIDR); err != nil {
		return nil, err
	}
	n := 1 << (32 - cfg.ServiceCIDR.Bits())
	usable := n - 2 // the network and broadcast addresses are never used
	a := &Allocator{reg: reg, cidr: cfg.ServiceCIDR.Masked(), ports: cfg.NodePorts,
		ips: newPool(1, usable, staticBand(usable, 16, 256), 1),
		nodes: newPool(cfg.NodePorts.Base, cfg.NodePorts.Size,
			staticBand(cfg.NodePorts.Size, 32, 128), -1)}
	return a, nil
}

// checkCIDR accepts IPv4 ranges from /12 to /29, as upstream bounds them.
func checkCIDR(p netip.Prefix) error {
	if !p.Addr().Is4() {
		return fmt.Errorf("--service-cidr %s: only IPv4 service networks are supported", p)
	}
	if p.Bits() < 12 || p.Bits() > 29 {
		return fmt.Errorf("--service-cidr %s: the prefix length must be between /12 and /29", p)
	}
	return nil
}

// KubernetesIP is the first address of the range, the API's own Service's.
func (a *Allocator) KubernetesIP() netip.Addr { return a.addr(1) }

// CIDR is the service network.
func (a *Allocator) CIDR() netip.Prefix { return a.cidr }

func (a *Allocator) addr(off int) netip.Addr {
	v := u32(a.cidr.Addr()) + uint32(off)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

func u32(addr netip.Addr) uint32 {
	b := addr.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// offset of ip in the range, false when ip is not a usable address of it.
func (a *Allocator) offset(ip string) (int, bool) {
	addr, err := netip.ParseAddr(ip)
	if err != nil || !a.cidr.Contains(addr) {
		return 0, false
	}
	off := int(u32(addr) - u32(a.cidr.Addr()))
	return off, a.ips.contains(off)
}

// Load rebuilds the allocations from the stored Services.
func (a *Allocator) Load(ctx context.Context) error { return a.resync(ctx) }

// resync lists the stored Services and makes the pools hold exactly what
// they hold, keeping reservations of writes still under way.
func (a *Allocator) resync(ctx context.Context) error {
	a.mu.Lock()
	since := a.commits
	a.mu.Unlock()
	list, err := a.reg.List(ctx, api.ServiceResource, "", registry.ListOptions{})
	if err != nil {
		return fmt.Errorf("list services: %w", err)
	}
	ips, ports := map[int]holder{}, map[int]holder{}
	for _, o := range list.Items {
		s := o.(*corev1.Service)
		h := holder{uid: s.UID, namespace: s.Namespace, name: s.Name}
		if off, ok := a.offset(s.Spec.ClusterIP); ok {
			ips[off] = h
		}
		for _, n := range nodePortsOf(s) {
			if a.ports.Contains(int(n)) {
				ports[int(n)] = h
			}
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ips.rebuild(ips, since)
	a.nodes.rebuild(ports, since)
	return nil
}
