package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/agent/runtime/runtimetest"
)

// Network namespaces for tests that put a node behind a link of their own:
// a Bridge in the host's namespace, owned by one test, with an address the
// test's server can listen on, and any number of Netns attached to it by a
// veth pair each. A Netns can lose packets (an nftables rule in a table of
// its own, inside the namespace) and have its link cut and restored.
// Processes run in it with nsenter, so they keep the host's mounts
// (containerd's socket, the test's temp dirs). Everything is removed when
// the test ends. Names are random: tests run in parallel, and other
// engineers' tests on the same machine too. Needs root, iproute2 and nft;
// fails loudly without them.

// Bridge is a Linux bridge of the test's own with a /24 of its own.
type Bridge struct {
	t      testing.TB
	Name   string
	Prefix netip.Prefix // the bridge's /24
	Addr   netip.Addr   // the host's address on the bridge (.1)
	next   int          // last host number handed to a namespace
}

// Netns is one network namespace attached to a Bridge.
type Netns struct {
	t      testing.TB
	Name   string     // as `ip netns` knows it
	Path   string     // /run/netns/<Name>, for nsenter --net=
	Addr   netip.Addr // its address on the bridge (eth0)
	hostIf string     // the host end of its veth pair, in the bridge
	table  string     // its nftables table, once Loss made it
}

// randomName is prefix and 8 random hex digits (interface names must stay
// within 15 bytes).
func randomName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// NeedNetworkTools fails the test unless ip, nft and nsenter are present.
func NeedNetworkTools(t testing.TB) {
	t.Helper()
	for _, bin := range []string{"ip", "nft", "nsenter"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s missing: network namespace tests need iproute2, nftables and util-linux (hack/deps.sh)", bin)
		}
	}
}

// NewBridge creates a bridge with a free 10.x.y.0/24 and the host at .1.
func NewBridge(t testing.TB) *Bridge {
	t.Helper()
	NeedNetworkTools(t)
	b := &Bridge{t: t, Name: randomName("brc"), next: 1}
	b.Prefix = freeSubnet(t)
	b.Addr = b.Prefix.Addr().Next()
	MustRun(t, "ip", "link", "add", b.Name, "type", "bridge")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", b.Name).Run() })
	MustRun(t, "ip", "addr", "add", netip.PrefixFrom(b.Addr, 24).String(), "dev", b.Name)
	MustRun(t, "ip", "link", "set", b.Name, "up")
	return b
}

// freeSubnet picks a 10.x.y.0/24 in 10.160.0.0/11 that no address or
// route of the host overlaps (pods use 10.42/16, Services 10.43/16).
func freeSubnet(t testing.TB) netip.Prefix {
	t.Helper()
	used := MustRun(t, "ip", "-4", "-o", "addr", "show") + MustRun(t, "ip", "-4", "route", "show", "table", "all")
	for range 50 {
		b := make([]byte, 2)
		_, _ = rand.Read(b)
		p := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 160 + b[0]%32, b[1], 0}), 24)
		if !strings.Contains(used, strings.TrimSuffix(p.Addr().String(), ".0")+".") {
			return p
		}
	}
	t.Fatal("no free 10.160.0.0/11 subnet for a test bridge")
	return netip.Prefix{}
}

// AddNamespace creates a namespace with eth0 (a veth to the bridge) at
// the next free address of the bridge, lo up and a default route via the
// host.
func (b *Bridge) AddNamespace() *Netns {
	t := b.t
	t.Helper()
	b.next++
	if b.next > 254 {
		t.Fatal("a test bridge holds at most 253 namespaces")
	}
	addr := b.Prefix.Addr()
	for range b.next {
		addr = addr.Next()
	}
	n := &Netns{t: t, Name: randomName("bramble-"), Addr: addr, hostIf: randomName("vh")}
	n.Path = "/run/netns/" + n.Name
	peer := randomName("vn")
	MustRun(t, "ip", "netns", "add", n.Name)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", n.Name).Run() })
	MustRun(t, "ip", "link", "add", n.hostIf, "type", "veth", "peer", "name", peer)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", n.hostIf).Run() })
	MustRun(t, "ip", "link", "set", n.hostIf, "master", b.Name, "up")
	MustRun(t, "ip", "link", "set", peer, "netns", n.Name)
	n.ip("link", "set", peer, "name", "eth0")
	n.ip("addr", "add", netip.PrefixFrom(addr, 24).String(), "dev", "eth0")
	n.ip("link", "set", "eth0", "up")
	n.ip("link", "set", "lo", "up")
	n.ip("route", "add", "default", "via", b.Addr.String())
	return n
}

// ip runs `ip` inside the namespace.
func (n *Netns) ip(args ...string) string {
	n.t.Helper()
	return MustRun(n.t, "ip", append([]string{"-n", n.Name}, args...)...)
}

// Command is name with args to be run inside the namespace (with the
// host's mounts): nsenter --net=<Path> name args...
func (n *Netns) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("nsenter", append([]string{"--net=" + n.Path, name}, args...)...)
}

// Run runs a program inside the namespace to completion and returns its
// standard output; a failure fails the test.
func (n *Netns) Run(name string, args ...string) string {
	n.t.Helper()
	return MustRun(n.t, "nsenter", append([]string{"--net=" + n.Path, name}, args...)...)
}

// Loss drops percent % of the packets entering and leaving the namespace,
// at random (nft numgen random), from a table of the namespace's own that
// replaces the previous Loss; 0 removes it.
func (n *Netns) Loss(percent int) {
	n.t.Helper()
	if percent < 0 || percent > 100 {
		n.t.Fatalf("loss: got %d %%, want 0-100", percent)
	}
	if n.table != "" {
		n.Run("nft", "delete", "table", "inet", n.table)
		n.table = ""
	}
	if percent == 0 {
		return
	}
	n.table = randomName("chaos_")
	rule := fmt.Sprintf("numgen random mod 100 < %d counter drop", percent)
	if percent == 100 {
		rule = "counter drop" // numgen's values stop at 99
	}
	rules := fmt.Sprintf(`table inet %[1]s {
	chain in { type filter hook input priority -10; %[2]s; }
	chain out { type filter hook output priority -10; %[2]s; }
}
`, n.table, rule)
	cmd := n.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		n.t.Fatalf("nft loss rule in %s: %v\n%s", n.Name, err, out)
	}
}

// Dropped is how many packets the current Loss rule dropped so far.
func (n *Netns) Dropped() int {
	n.t.Helper()
	if n.table == "" {
		return 0
	}
	total := 0
	fields := strings.Fields(n.Run("nft", "list", "table", "inet", n.table))
	for i := 0; i+1 < len(fields); i++ {
		if fields[i] == "packets" {
			v, err := strconv.Atoi(fields[i+1])
			if err != nil {
				n.t.Fatalf("nft counter in %s: %q is not a number", n.Name, fields[i+1])
			}
			total += v
		}
	}
	return total
}

// Cut takes the namespace's link down (its host end, so the namespace
// keeps its address and routes, as a node whose cable is pulled).
func (n *Netns) Cut() {
	n.t.Helper()
	MustRun(n.t, "ip", "link", "set", n.hostIf, "down")
}

// Heal brings the link Cut took down back up.
func (n *Netns) Heal() {
	n.t.Helper()
	MustRun(n.t, "ip", "link", "set", n.hostIf, "up")
}

// StartAgentIn is StartAgent with the agent inside network namespace n
// (run by nsenter, so it keeps the host's mounts), reporting n's address
// as its node IP. s must listen on an address n reaches (StartServerOn
// with n's Bridge's address).
func StartAgentIn(t testing.TB, n *Netns, s *Server, d *runtimetest.Daemon, ns string, extra ...string) *Agent {
	t.Helper()
	wrap := []string{"nsenter", "--net=" + n.Path}
	return startAgent(t, wrap, Bin, "", s, d, ns, append([]string{"--node-ip", n.Addr.String()}, extra...))
}
