package policy

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// testNet is a node made of network namespaces: a node namespace with a
// bridge (10.77.0.1/24, br_netfilter on) for its pods, each pod a namespace
// with a veth on the bridge, and an "outside" namespace routed through the
// node (10.78.0.2). Names carry the test process's id.
type testNet struct {
	t      testing.TB
	prefix string
	node   string
	spaces []string
}

// requireTools fails (never skips) when the real parts are missing.
func requireTools(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: install iproute2 and nftables (hack/deps.sh): %v", tool, err)
		}
	}
}

func newTestNet(t testing.TB) *testNet {
	t.Helper()
	requireTools(t)
	n := &testNet{t: t, prefix: fmt.Sprintf("bnp%d-", os.Getpid())}
	n.node = n.netns("node")
	n.ip("-n", n.node, "link", "add", "br0", "type", "bridge")
	n.ip("-n", n.node, "addr", "add", "10.77.0.1/24", "dev", "br0")
	n.ip("-n", n.node, "link", "set", "br0", "up")
	n.sysctl(n.node, "net/ipv4/ip_forward")
	requireBrNetfilter(t)
	n.sysctl(n.node, "net/bridge/bridge-nf-call-iptables")
	out := n.netns("out")
	n.ip("-n", n.node, "link", "add", "vout", "type", "veth", "peer", "name", "eth0", "netns", out)
	n.ip("-n", n.node, "addr", "add", "10.78.0.1/24", "dev", "vout")
	n.ip("-n", n.node, "link", "set", "vout", "up")
	n.up(out, "10.78.0.2/24", "10.78.0.1")
	return n
}

// requireBrNetfilter loads br_netfilter when it is not (as the agent's
// sandbox does), and fails when it cannot be.
func requireBrNetfilter(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/proc/sys/net/bridge"); err == nil {
		return
	}
	out, err := exec.Command("modprobe", "br_netfilter").CombinedOutput()
	if _, serr := os.Stat("/proc/sys/net/bridge"); serr != nil {
		t.Fatalf("br_netfilter is not loaded and modprobe br_netfilter failed (%v: %s): bridged pod traffic would bypass the rules", err, out)
	}
}

// netns adds a namespace, removed when the test ends.
func (n *testNet) netns(name string) string {
	full := n.prefix + name
	n.ip("netns", "add", full)
	n.t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", full).Run() })
	n.spaces = append(n.spaces, full)
	return full
}

// addPod makes a pod namespace on the bridge with the address given.
func (n *testNet) addPod(name, ip string) string {
	ns := n.netns(name)
	host := "v" + name
	n.ip("-n", n.node, "link", "add", host, "type", "veth", "peer", "name", "eth0", "netns", ns)
	n.ip("-n", n.node, "link", "set", host, "master", "br0", "up")
	n.up(ns, ip+"/24", "10.77.0.1")
	return ns
}

func (n *testNet) up(ns, cidr, gw string) {
	n.ip("-n", ns, "link", "set", "lo", "up")
	n.ip("-n", ns, "addr", "add", cidr, "dev", "eth0")
	n.ip("-n", ns, "link", "set", "eth0", "up")
	n.ip("-n", ns, "route", "add", "default", "via", gw)
}

func (n *testNet) ip(args ...string) {
	n.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		n.t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

func (n *testNet) sysctl(ns, key string) {
	n.t.Helper()
	inNetns(n.t, ns, func() {
		if err := os.WriteFile("/proc/sys/"+key, []byte("1"), 0o644); err != nil {
			n.t.Fatalf("sysctl %s=1 in %s: %v", key, ns, err)
		}
	})
}

// openNetns opens a namespace's file; the caller closes it.
func openNetns(t testing.TB, ns string) *os.File {
	t.Helper()
	f, err := os.Open("/run/netns/" + ns)
	if err != nil {
		t.Fatalf("open netns %s: %v", ns, err)
	}
	return f
}

// inNetns runs fn on an OS thread switched into the namespace; sockets made
// there stay in it, and /proc/sys/net opened there is that namespace's.
func inNetns(t testing.TB, ns string, fn func()) {
	t.Helper()
	runtime.LockOSThread()
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatalf("open own netns: %v", err)
	}
	defer self.Close()
	target := openNetns(t, ns)
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		t.Fatalf("setns %s: %v", ns, err)
	}
	defer func() {
		if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
			panic(fmt.Sprintf("setns back: %v", err)) // leave the thread locked: it dies with the goroutine
		}
		runtime.UnlockOSThread()
	}()
	fn()
}

// listen serves TCP on the port inside the namespace until the test ends:
// each connection gets "ok".
func listen(t testing.TB, ns string, port int) {
	t.Helper()
	var l net.Listener
	inNetns(t, ns, func() {
		var err error
		if l, err = net.Listen("tcp4", fmt.Sprintf("0.0.0.0:%d", port)); err != nil {
			t.Fatalf("listen in %s: %v", ns, err)
		}
	})
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("ok"))
			c.Close()
		}
	}()
}

// connects dials from inside a namespace and reports whether the server
// answered within timeout (a dropped SYN never is).
func connects(t testing.TB, ns, addr string, timeout time.Duration) bool {
	t.Helper()
	got := false
	inNetns(t, ns, func() {
		c, err := net.DialTimeout("tcp4", addr, timeout)
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(time.Second))
		buf := make([]byte, 2)
		n, _ := c.Read(buf)
		got = string(buf[:n]) == "ok"
	})
	return got
}
