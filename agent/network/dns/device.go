package dns

import (
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// DefaultDevice is the dummy interface that holds the cluster DNS address
// on a node, so the server can bind it and pods reach it through their
// default route (the node routes its own addresses locally).
const DefaultDevice = "bramble-dns"

// loopbackLabel marks the cluster DNS address when it sits on lo.
const loopbackLabel = "lo:bramble-dns"

// EnsureDevice makes the dummy interface device exist, up, holding ip as
// a host address (/32 or /128), and says which device holds it. On a
// kernel without the dummy driver (some edge kernels, microVMs) the
// address goes on lo instead, labelled lo:bramble-dns: the node answers it
// just the same. It is idempotent. h is the netlink handle of the node's
// namespace (nil: the process's own).
func EnsureDevice(h *netlink.Handle, device string, ip netip.Addr) (string, error) {
	if h == nil {
		var err error
		if h, err = netlink.NewHandle(); err != nil {
			return "", fmt.Errorf("cluster dns device: netlink: %w", err)
		}
		defer h.Close()
	}
	link, err := dummy(h, device)
	label := ""
	if errors.Is(err, unix.EOPNOTSUPP) {
		link, err = h.LinkByName("lo")
		label = loopbackLabel
	}
	if err != nil {
		return "", err
	}
	bits := ip.BitLen()
	addr := &netlink.Addr{IPNet: &net.IPNet{IP: ip.AsSlice(), Mask: net.CIDRMask(bits, bits)}, Label: label}
	if err := h.AddrReplace(link, addr); err != nil {
		return "", fmt.Errorf("cluster dns device %s: address %s: %w", link.Attrs().Name, ip, err)
	}
	if err := h.LinkSetUp(link); err != nil {
		return "", fmt.Errorf("cluster dns device %s: up: %w", link.Attrs().Name, err)
	}
	return link.Attrs().Name, nil
}

// dummy finds or adds the dummy link device.
func dummy(h *netlink.Handle, device string) (netlink.Link, error) {
	link, err := h.LinkByName(device)
	var nf netlink.LinkNotFoundError
	if errors.As(err, &nf) {
		if err := h.LinkAdd(&netlink.Dummy{LinkAttrs: netlink.LinkAttrs{Name: device}}); err != nil {
			return nil, fmt.Errorf("cluster dns device %s: add: %w", device, err)
		}
		link, err = h.LinkByName(device)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster dns device %s: %w", device, err)
	}
	if _, ok := link.(*netlink.Dummy); !ok {
		return nil, fmt.Errorf("cluster dns device %s: exists as a %s link, not dummy", device, link.Type())
	}
	return link, nil
}
