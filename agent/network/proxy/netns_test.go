package proxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/network/netnstest"
)

// node is a node made of network namespaces: the node namespace with a
// bridge br0 (10.77.0.1/24) for its pods, pods as namespaces with a veth on
// the bridge (hairpin on, as the CNI bridge plugin's hairpinMode), and an
// "outside" host at 10.78.0.2 reaching the node at 10.78.0.1.
type node struct {
	ns, out *netnstest.NS
	applier *Applier
	pods    map[string]*netnstest.NS
}

const (
	nodeIP    = "10.78.0.1"
	outsideIP = "10.78.0.2"
)

func newNode(t *testing.T) *node {
	t.Helper()
	for _, tool := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install iproute2 and nftables (hack/deps.sh): %v", tool, err)
		}
	}
	n := &node{ns: netnstest.New(t, "bsn"), out: netnstest.New(t, "bso"), pods: map[string]*netnstest.NS{}}
	n.ns.Run(t, "ip", "link", "add", "br0", "type", "bridge")
	n.ns.Run(t, "ip", "addr", "add", "10.77.0.1/24", "dev", "br0")
	n.ns.Run(t, "ip", "link", "set", "br0", "up")
	n.ns.Run(t, "sysctl", "-qw", "net.ipv4.ip_forward=1")
	netnstest.Link(t, n.ns, "vout", nodeIP+"/24", n.out, "eth0", outsideIP+"/24")
	n.out.Run(t, "ip", "route", "add", "default", "via", nodeIP)
	f, err := os.Open("/run/netns/" + n.ns.Name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if n.applier, err = NewApplier(int(f.Fd())); err != nil {
		t.Fatal(err)
	}
	return n
}

// addPod makes a pod at ip serving TCP 8080: each connection is answered
// with "<name> <client address>".
func (n *node) addPod(t *testing.T, name, ip string) {
	t.Helper()
	p := netnstest.New(t, "bsp")
	host := fmt.Sprintf("vsp%d", len(n.pods))
	netnstest.Link(t, n.ns, host, "169.254.9.9/32", p, "eth0", ip+"/24")
	n.ns.Run(t, "ip", "addr", "flush", "dev", host)
	n.ns.Run(t, "ip", "link", "set", host, "master", "br0")
	n.ns.Run(t, "ip", "link", "set", host, "type", "bridge_slave", "hairpin", "on")
	p.Run(t, "ip", "route", "add", "default", "via", "10.77.0.1")
	n.pods[name] = p
	var l net.Listener
	if err := p.Do(func() (err error) { l, err = net.Listen("tcp4", ":8080"); return err }); err != nil {
		t.Fatalf("listen in pod %s: %v", name, err)
	}
	t.Cleanup(func() { l.Close() })
	go serve(l, name)
}

func serve(l net.Listener, name string) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
		_, _ = io.WriteString(c, name+" "+host)
		c.Close()
	}
}

// dial connects from ns to addr and returns the answer's two words: the
// pod that answered and the client address it saw.
func dial(ns *netnstest.NS, addr string) (pod, client string, err error) {
	err = ns.Do(func() error {
		c, err := net.DialTimeout("tcp4", addr, 3*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(3 * time.Second))
		b, err := io.ReadAll(c)
		if err != nil {
			return err
		}
		f := strings.Fields(string(b))
		if len(f) != 2 {
			return fmt.Errorf("answer %q", b)
		}
		pod, client = f[0], f[1]
		return nil
	})
	return pod, client, err
}

// refused says whether dialing addr is refused (not timed out) within d.
func refused(ns *netnstest.NS, addr string, d time.Duration) error {
	start := time.Now()
	_, _, err := dial(ns, addr)
	switch {
	case err == nil:
		return errors.New("connected")
	case !errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("got %v, want connection refused", err)
	case time.Since(start) > d:
		return fmt.Errorf("refused after %v, want within %v", time.Since(start), d)
	}
	return nil
}

// refusedUDP sends a datagram to addr from ns and wants the ICMP port
// unreachable back (read fails with ECONNREFUSED) within a second.
func refusedUDP(ns *netnstest.NS, addr string) error {
	return ns.Do(func() error {
		c, err := net.Dial("udp4", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := c.Write([]byte("x")); err != nil {
			return err
		}
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		_, err = c.Read(make([]byte, 8))
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("got %v, want connection refused", err)
		}
		return nil
	})
}
