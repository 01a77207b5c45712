package overlay_test

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/agent/network/netnstest"
	"github.com/bramble-edge/bramble/agent/network/overlay"
)

// node is one test node: a network namespace joined to the others by a
// veth, with a "pod" address from its podCIDR on a bridge (as cni0 holds one).
type node struct {
	name    string
	ns      *netnstest.NS
	ip      string // underlay
	podCIDR string
	podIP   string
	ov      *overlay.Overlay
	mac     net.HardwareAddr
}

// twoNodes makes nodes a (10.99.0.1, pods 10.42.1.0/24) and b (10.99.0.2,
// pods 10.42.2.0/24) joined by a veth, each running an overlay of backend.
func twoNodes(t testing.TB, backend string) (a, b *node) {
	a = &node{name: "node-a", ns: netnstest.New(t, "ova"), ip: "10.99.0.1", podCIDR: "10.42.1.0/24", podIP: "10.42.1.5"}
	b = &node{name: "node-b", ns: netnstest.New(t, "ovb"), ip: "10.99.0.2", podCIDR: "10.42.2.0/24", podIP: "10.42.2.5"}
	netnstest.Link(t, a.ns, "eth-a", a.ip+"/24", b.ns, "eth-b", b.ip+"/24")
	for _, n := range []*node{a, b} {
		n.ns.Run(t, "ip", "link", "add", "pod0", "type", "bridge")
		n.ns.Run(t, "ip", "addr", "add", n.podIP+"/32", "dev", "pod0")
		n.ns.Run(t, "ip", "link", "set", "pod0", "up")
		h, err := netlink.NewHandleAt(n.ns.Handle)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(h.Close)
		if n.ov, err = overlay.New(overlay.Config{Backend: backend, NodeIP: net.ParseIP(n.ip), Handle: h}); err != nil {
			t.Fatal(err)
		}
		_, cidr, _ := net.ParseCIDR(n.podCIDR)
		if n.mac, err = n.ov.Setup(n.name, cidr); err != nil {
			t.Fatalf("%s: Setup: %v", n.name, err)
		}
	}
	return a, b
}

// nodeObject is the Node the server would send for n.
func (n *node) nodeObject() *corev1.Node {
	obj := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name, Annotations: map[string]string{}},
		Spec:   corev1.NodeSpec{PodCIDR: n.podCIDR, PodCIDRs: []string{n.podCIDR}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: n.ip}}}}
	if n.mac != nil {
		obj.Annotations[overlay.AnnotationVXLANMAC] = n.mac.String()
	}
	return obj
}

// reconcile runs n's overlay over the Nodes of nodes, as the agent does.
func (n *node) reconcile(t testing.TB, nodes ...*node) {
	t.Helper()
	var remotes []overlay.Remote
	for _, m := range nodes {
		r, ok, err := overlay.RemoteFromNode(m.nodeObject())
		if err != nil || !ok {
			t.Fatalf("RemoteFromNode(%s): ok %v, err %v", m.name, ok, err)
		}
		remotes = append(remotes, r)
	}
	if err := n.ov.Reconcile(n.name, remotes); err != nil {
		t.Fatalf("%s: Reconcile: %v", n.name, err)
	}
}

// dial connects from src (bound to srcIP) to dst's listener on dstIP and
// returns the source address dst's listener saw.
func dial(src *node, srcIP string, dst *node, dstIP string) (string, error) {
	var ln net.Listener
	if err := dst.ns.Do(func() (err error) {
		ln, err = net.Listen("tcp4", dstIP+":0")
		return err
	}); err != nil {
		return "", err
	}
	defer ln.Close()
	seen := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			seen <- ""
			return
		}
		defer c.Close()
		seen <- c.RemoteAddr().(*net.TCPAddr).IP.String()
		_, _ = io.Copy(c, c)
	}()
	var conn net.Conn
	err := src.ns.Do(func() (err error) {
		// Long enough for one SYN retransmit (after 1 s): on a loaded
		// machine the first SYN can go unanswered while the path settles.
		d := net.Dialer{Timeout: 4 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(srcIP)}}
		conn, err = d.Dial("tcp4", ln.Addr().String())
		return err
	})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("ping")); err != nil {
		return "", err
	}
	buf := make([]byte, 4)
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "ping" {
		return "", fmt.Errorf("echo: got %q, %v", buf, err)
	}
	return <-seen, nil
}
