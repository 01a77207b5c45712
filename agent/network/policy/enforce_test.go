package policy

import (
	"context"
	"net/netip"
	"testing"
	"time"
)

// enforceNet is the namespaces of TestEnforce: three pods of namespace prod on
// one node's bridge, and an address outside the node.
type enforceNet struct {
	*testNet
	web, client, other string // pod namespaces
	applier            *Applier
}

const (
	webIP, clientIP, otherIP, outIP = "10.77.0.2", "10.77.0.3", "10.77.0.4", "10.78.0.2"
)

func newEnforceNet(t *testing.T) *enforceNet {
	n := &enforceNet{testNet: newTestNet(t)}
	n.web = n.addPod("web", webIP)
	n.client = n.addPod("client", clientIP)
	n.other = n.addPod("other", otherIP)
	for _, ns := range []string{n.web, n.client, n.other, n.prefix + "out"} {
		listen(t, ns, 8080)
	}
	listen(t, n.web, 9090)
	f := openNetns(t, n.node)
	t.Cleanup(func() { f.Close() })
	n.applier = NewApplier(Config{NetNSFd: int(f.Fd())})
	return n
}

// apply compiles the policies for the node's three pods and programs them.
func (n *enforceNet) apply(t *testing.T, policies ...string) {
	t.Helper()
	in := fixture(t, policies...)
	in.Namespaces = map[string]map[string]string{"prod": {}}
	in.Local = []Pod{
		{Namespace: "prod", Name: "web", UID: "w", Labels: map[string]string{"app": "web"},
			IPs: []netip.Addr{netip.MustParseAddr(webIP)}, Ports: []Port{{Name: "http", Number: 8080}}},
		{Namespace: "prod", Name: "client", UID: "c", Labels: map[string]string{"role": "client"},
			IPs: []netip.Addr{netip.MustParseAddr(clientIP)}},
		{Namespace: "prod", Name: "other", UID: "o", Labels: map[string]string{"role": "other"},
			IPs: []netip.Addr{netip.MustParseAddr(otherIP)}},
	}
	in.Peers = nil
	rs := Compile(in)
	if len(rs.Problems) > 0 {
		t.Fatalf("problems: %v", rs.Problems)
	}
	if err := n.applier.Apply(context.Background(), rs); err != nil {
		t.Fatalf("apply: %v", err)
	}
}

type conn struct {
	from, to string
	want     bool
}

func (n *enforceNet) check(t *testing.T, step string, conns ...conn) {
	t.Helper()
	for _, c := range conns {
		got := connects(t, c.from, c.to, 600*time.Millisecond)
		for try := 0; try < 2 && c.want && !got; try++ { // a loaded machine may be slow to answer, never to drop
			got = connects(t, c.from, c.to, 3*time.Second)
		}
		if got != c.want {
			t.Errorf("%s: %s -> %s: got connected=%v, want %v", step, c.from, c.to, got, c.want)
		}
	}
}

// TestEnforce programs real nftables rules in a node namespace and checks
// each step with real TCP connections, each blocked one first shown to work
// with no policy.
func TestEnforce(t *testing.T) {
	n := newEnforceNet(t)
	web, client, other, out := n.web, n.client, n.other, n.prefix+"out"
	n.apply(t)
	n.check(t, "no policy (witness)", conn{client, webIP + ":8080", true}, conn{other, webIP + ":8080", true},
		conn{client, webIP + ":9090", true}, conn{web, outIP + ":8080", true}, conn{out, webIP + ":8080", true},
		conn{web, clientIP + ":8080", true}, conn{web, otherIP + ":8080", true})

	n.apply(t, denyProd)
	n.check(t, "default deny", conn{client, webIP + ":8080", false}, conn{other, webIP + ":8080", false},
		conn{out, webIP + ":8080", false}, conn{web, outIP + ":8080", true})

	n.apply(t, denyProd, `{metadata: {namespace: prod, name: clients}, spec: {podSelector: {matchLabels: {app: web}},
		ingress: [{from: [{podSelector: {matchLabels: {role: client}}}], ports: [{port: http}]}]}}`)
	n.check(t, "allow role=client on the named port", conn{client, webIP + ":8080", true},
		conn{client, webIP + ":9090", false}, conn{other, webIP + ":8080", false}, conn{client, otherIP + ":8080", false})

	n.apply(t, `{metadata: {namespace: prod, name: egress}, spec: {podSelector: {matchLabels: {app: web}}, policyTypes: [Egress],
		egress: [{to: [{ipBlock: {cidr: 10.77.0.0/24, except: [10.77.0.4/32]}}]}]}}`)
	n.check(t, "egress to an ipBlock with except", conn{web, clientIP + ":8080", true},
		conn{web, otherIP + ":8080", false}, conn{web, outIP + ":8080", false}, conn{client, webIP + ":8080", true})

	n.apply(t, `{metadata: {namespace: prod, name: outside}, spec: {podSelector: {matchLabels: {app: web}},
		ingress: [{from: [{ipBlock: {cidr: 10.78.0.0/16}}], ports: [{port: 8080}]}]}}`)
	n.check(t, "ingress from an ipBlock", conn{out, webIP + ":8080", true}, conn{out, webIP + ":9090", false},
		conn{client, webIP + ":8080", false})

	n.apply(t)
	n.check(t, "policies removed", conn{client, webIP + ":8080", true}, conn{other, webIP + ":8080", true},
		conn{web, outIP + ":8080", true}, conn{web, otherIP + ":8080", true})
}
