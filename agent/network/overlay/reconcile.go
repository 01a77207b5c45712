package overlay

import (
	"errors"
	"fmt"
	"net"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// Reconcile makes the kernel's routes (and, in vxlan mode, the vxlan
// device's neighbour and FDB entries) match remotes: one route per IPv4
// podCIDR of every remote node but self that has what routes need; any
// entry of a node no longer listed is removed. Setup must have run.
func (o *Overlay) Reconcile(self string, remotes []Remote) error {
	var dev netlink.Link
	if o.cfg.Backend == BackendVXLAN {
		var err error
		if dev, err = o.h.LinkByName(o.cfg.Device); err != nil {
			return fmt.Errorf("find %s (Setup not run?): %w", o.cfg.Device, err)
		}
	}
	w := desire(self, remotes, dev)
	// Neighbours and FDB entries before the routes that use them.
	var errs []error
	if dev != nil {
		errs = append(errs, o.reconcileNeigh(dev, netlink.FAMILY_V4, w.neighs), o.reconcileNeigh(dev, unix.AF_BRIDGE, w.fdb))
	}
	return errors.Join(append(errs, o.reconcileRoutes(w.routes))...)
}

// wanted is the kernel state Reconcile aims at.
type wanted struct {
	routes      []netlink.Route
	neighs, fdb []netlink.Neigh
}

// desire lists the entries for remotes: through dev (vxlan), or straight
// to each node IP when dev is nil (host-gw).
func desire(self string, remotes []Remote, dev netlink.Link) wanted {
	var w wanted
	for _, r := range remotes {
		if r.Name == self || r.NodeIP == nil || r.NodeIP.To4() == nil || dev != nil && r.MAC == nil {
			continue // not routable yet (a vxlan MAC not published yet)
		}
		for _, c := range r.PodCIDRs {
			if c.IP.To4() == nil {
				continue // IPv6 pod CIDRs: not routed yet
			}
			if dev == nil {
				w.routes = append(w.routes, netlink.Route{Dst: c, Gw: r.NodeIP, Protocol: RouteProtocol})
				continue
			}
			idx := dev.Attrs().Index
			w.routes = append(w.routes, netlink.Route{Dst: c, Gw: gateway(c), LinkIndex: idx,
				Flags: int(netlink.FLAG_ONLINK), Protocol: RouteProtocol})
			w.neighs = append(w.neighs, netlink.Neigh{LinkIndex: idx, Family: netlink.FAMILY_V4,
				State: netlink.NUD_PERMANENT, IP: gateway(c), HardwareAddr: r.MAC})
			w.fdb = append(w.fdb, netlink.Neigh{LinkIndex: idx, Family: unix.AF_BRIDGE, Flags: netlink.NTF_SELF,
				State: netlink.NUD_PERMANENT, IP: r.NodeIP.To4(), HardwareAddr: r.MAC})
		}
	}
	return w
}

// reconcileRoutes adds or replaces want and deletes every other route the
// overlay owns (RouteProtocol) in the main table.
func (o *Overlay) reconcileRoutes(want []netlink.Route) error {
	keep := map[string]bool{}
	var errs []error
	for i := range want {
		keep[want[i].Dst.String()] = true
		if err := o.h.RouteReplace(&want[i]); err != nil {
			errs = append(errs, fmt.Errorf("route %s via %s: %w", want[i].Dst, want[i].Gw, err))
		}
	}
	have, err := o.h.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Protocol: RouteProtocol},
		netlink.RT_FILTER_PROTOCOL)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("list routes: %w", err))...)
	}
	for i := range have {
		if have[i].Dst != nil && !keep[have[i].Dst.String()] {
			if err := o.h.RouteDel(&have[i]); err != nil {
				errs = append(errs, fmt.Errorf("delete stale route %s: %w", have[i].Dst, err))
			}
		}
	}
	return errors.Join(errs...)
}

// reconcileNeigh sets want on dev (family: IPv4 neighbours or bridge FDB
// entries) and deletes the device's other entries of that family.
func (o *Overlay) reconcileNeigh(dev netlink.Link, family int, want []netlink.Neigh) error {
	keep := map[string]bool{}
	var errs []error
	for i := range want {
		keep[neighKey(&want[i])] = true
		if err := o.h.NeighSet(&want[i]); err != nil {
			errs = append(errs, fmt.Errorf("%s entry %s -> %s on %s: %w", familyName(family),
				want[i].HardwareAddr, want[i].IP, o.cfg.Device, err))
		}
	}
	have, err := o.h.NeighList(dev.Attrs().Index, family)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("list %s entries: %w", familyName(family), err))...)
	}
	for i := range have {
		n := &have[i]
		if n.HardwareAddr == nil || keep[neighKey(n)] {
			continue
		}
		if family == unix.AF_BRIDGE {
			n.Flags |= netlink.NTF_SELF
		}
		if err := o.h.NeighDel(n); err != nil {
			errs = append(errs, fmt.Errorf("delete stale %s entry %s: %w", familyName(family), n.HardwareAddr, err))
		}
	}
	return errors.Join(errs...)
}

// neighKey identifies an entry: MAC and IP (an FDB entry's IP is the
// remote node, a neighbour's the remote gateway).
func neighKey(n *netlink.Neigh) string {
	return n.HardwareAddr.String() + "/" + net.IP(n.IP).String()
}

func familyName(family int) string {
	if family == unix.AF_BRIDGE {
		return "FDB"
	}
	return "neighbour"
}
