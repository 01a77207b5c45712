package overlay

import (
	"errors"
	"fmt"
	"net"

	"github.com/vishvananda/netlink"
)

// Setup prepares this node's end: in vxlan mode the vxlan device (created,
// or recreated when its VNI, port, local address or MAC differ), up, with
// the first address of podCIDR (the next hop other nodes route this
// node's pods through); in host-gw mode it removes a vxlan device left by
// an earlier vxlan run. It returns the MAC to publish (nil in host-gw).
func (o *Overlay) Setup(node string, podCIDR *net.IPNet) (net.HardwareAddr, error) {
	if o.cfg.Backend == BackendHostGW {
		return nil, o.deleteDevice()
	}
	uplink, err := o.uplink()
	if err != nil {
		return nil, err
	}
	want := o.vxlanSpec(node, uplink)
	dev, err := o.ensureDevice(want)
	if err != nil {
		return nil, err
	}
	if podCIDR != nil {
		addr := &netlink.Addr{IPNet: &net.IPNet{IP: gateway(podCIDR), Mask: net.CIDRMask(32, 32)}}
		if err := o.h.AddrReplace(dev, addr); err != nil {
			return nil, fmt.Errorf("address %s on %s: %w", addr.IPNet, o.cfg.Device, err)
		}
	}
	if err := o.h.LinkSetUp(dev); err != nil {
		return nil, fmt.Errorf("set %s up: %w", o.cfg.Device, err)
	}
	return dev.Attrs().HardwareAddr, nil
}

// vxlanSpec is the vxlan device this node wants, over uplink.
func (o *Overlay) vxlanSpec(node string, uplink netlink.Link) *netlink.Vxlan {
	mtu := o.cfg.MTU
	if mtu == 0 {
		mtu = uplink.Attrs().MTU - vxlanOverhead
	}
	return &netlink.Vxlan{
		LinkAttrs: netlink.LinkAttrs{Name: o.cfg.Device, MTU: mtu, HardwareAddr: MACFor(node)},
		VxlanId:   o.cfg.VNI, VtepDevIndex: uplink.Attrs().Index, SrcAddr: o.cfg.NodeIP.To4(),
		Port: o.cfg.Port, Learning: false,
	}
}

// ensureDevice returns the vxlan device, creating it as want when missing
// or different.
func (o *Overlay) ensureDevice(want *netlink.Vxlan) (netlink.Link, error) {
	cur, err := o.h.LinkByName(want.Name)
	if err == nil && sameVXLAN(cur, want) {
		if cur.Attrs().MTU != want.MTU {
			if err := o.h.LinkSetMTU(cur, want.MTU); err != nil {
				return nil, fmt.Errorf("set MTU of %s: %w", want.Name, err)
			}
		}
		return cur, nil
	}
	if err == nil {
		if err := o.h.LinkDel(cur); err != nil {
			return nil, fmt.Errorf("delete outdated %s: %w", want.Name, err)
		}
	} else if !isNotFound(err) {
		return nil, fmt.Errorf("find %s: %w", want.Name, err)
	}
	if err := o.h.LinkAdd(want); err != nil {
		return nil, fmt.Errorf("create %s (VNI %d, port %d, local %s): %w",
			want.Name, want.VxlanId, want.Port, want.SrcAddr, err)
	}
	return o.h.LinkByName(want.Name)
}

func sameVXLAN(cur netlink.Link, want *netlink.Vxlan) bool {
	v, ok := cur.(*netlink.Vxlan)
	return ok && v.VxlanId == want.VxlanId && v.Port == want.Port && v.SrcAddr.Equal(want.SrcAddr) &&
		v.VtepDevIndex == want.VtepDevIndex && v.HardwareAddr.String() == want.HardwareAddr.String()
}

// uplink is the interface holding the node IP.
func (o *Overlay) uplink() (netlink.Link, error) {
	addrs, err := o.h.AddrList(nil, netlink.FAMILY_V4)
	if err != nil {
		return nil, fmt.Errorf("list addresses: %w", err)
	}
	for _, a := range addrs {
		if a.IP.Equal(o.cfg.NodeIP) {
			link, err := o.h.LinkByIndex(a.LinkIndex)
			if err != nil {
				return nil, fmt.Errorf("interface of %s: %w", o.cfg.NodeIP, err)
			}
			return link, nil
		}
	}
	return nil, fmt.Errorf("--node-ip %s: no interface of this node has that address", o.cfg.NodeIP)
}

func (o *Overlay) deleteDevice() error {
	cur, err := o.h.LinkByName(o.cfg.Device)
	if isNotFound(err) {
		return nil
	}
	if err == nil {
		err = o.h.LinkDel(cur)
	}
	if err != nil {
		return fmt.Errorf("delete %s: %w", o.cfg.Device, err)
	}
	return nil
}

// Teardown removes the vxlan device (with its neighbour and FDB entries)
// and every route the overlay added.
func (o *Overlay) Teardown() error {
	return errors.Join(o.deleteDevice(), o.reconcileRoutes(nil))
}

func isNotFound(err error) bool {
	var nf netlink.LinkNotFoundError
	return errors.As(err, &nf)
}
