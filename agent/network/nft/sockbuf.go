package nft

import (
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// sockBuffer lets one large transaction (the service proxy's 1,000
// services and 10,000 endpoints are ~10 MB of netlink messages, sent as
// one sendmsg) and its acknowledgements fit in the netlink socket.
const sockBuffer = 32 << 20

// BigBuffers raises the socket's buffers past the sysctl caps (the agent
// runs as root with CAP_NET_ADMIN), falling back to the capped calls; for
// nftables.WithSockOptions, by every owner that sends large batches.
func BigBuffers(c *netlink.Conn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, sockBuffer)
		if serr == nil {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, sockBuffer)
		}
	})
	if err == nil && serr == nil {
		return nil
	}
	if err := c.SetWriteBuffer(sockBuffer); err != nil {
		return err
	}
	return c.SetReadBuffer(sockBuffer)
}
