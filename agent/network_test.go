package agent

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/agent/network/netnstest"
	"github.com/bramble-edge/bramble/agent/network/overlay"
	"github.com/bramble-edge/bramble/mqtt"
)

func routeNode(name, podCIDR, ip string) *corev1.Node {
	return &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
			mqtt.AnnotationVXLANMAC: overlay.MACFor(name).String(), mqtt.AnnotationNodeIP: ip}},
		Spec: corev1.NodeSpec{PodCIDR: podCIDR}}
}

// newTestNetwork is the agent's network for node-a (10.99.0.1) over store.
func newTestNetwork(t *testing.T, store *Store) *network {
	t.Helper()
	cfg := &Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := cfg.networkDefaults(); err != nil {
		t.Fatal(err)
	}
	n, err := newNetwork(cfg, "node-a", "10.99.0.1", store)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNetworkFollowsStoredNodes: the agent's network, run inside a test
// network namespace, programs the routes, vxlan device and masquerade
// rules from the Nodes in the local store; after a "reboot" (device and
// rules gone, store reopened, no server) they come back from the store; a
// Node deleted through the applier kicks a reconcile that removes its
// route.
func TestNetworkFollowsStoredNodes(t *testing.T) {
	ns := netnstest.New(t, "agn")
	peer := netnstest.New(t, "agp")
	netnstest.Link(t, ns, "eth-a", "10.99.0.1/24", peer, "eth-b", "10.99.0.2/24")
	dir := t.TempDir()
	store := openStore(t, dir)
	a := NewApplier(store, &fakeManager{})
	if err := a.Apply(context.Background(), mqtt.Event{Type: mqtt.EventChanges, Rev: 3, Changes: []mqtt.Change{
		change(t, mqtt.Added, ref(mqtt.ResourceNodes, "", "node-a"), routeNode("node-a", "10.42.1.0/24", "10.99.0.1")),
		change(t, mqtt.Added, ref(mqtt.ResourceNodes, "", "node-b"), routeNode("node-b", "10.42.2.0/24", "10.99.0.2")),
	}}); err != nil {
		t.Fatal(err)
	}
	n := newTestNetwork(t, store)
	if err := ns.Do(n.sync); err != nil {
		t.Fatalf("sync: %v", err)
	}
	checkNetwork(t, ns, true)

	store.Close() // reboot: the kernel state is gone, the store is not
	ns.Run(t, "ip", "link", "del", "vxlan.1")
	ns.Run(t, "nft", "delete", "table", "inet", "bramble")
	store = openStore(t, dir)
	n = newTestNetwork(t, store)
	if err := ns.Do(n.sync); err != nil {
		t.Fatalf("sync after reboot: %v", err)
	}
	checkNetwork(t, ns, true)

	a = NewApplier(store, &fakeManager{})
	a.SetOnNodes(n.changed)
	if err := a.Apply(context.Background(), mqtt.Event{Type: mqtt.EventChanges, Rev: 4, Prev: 3, Changes: []mqtt.Change{
		{Type: mqtt.Deleted, ObjectRef: ref(mqtt.ResourceNodes, "", "node-b")}}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-n.kick:
	default:
		t.Fatal("deleting a Node did not ask the network to reconcile")
	}
	if err := ns.Do(n.sync); err != nil {
		t.Fatalf("sync after delete: %v", err)
	}
	checkNetwork(t, ns, false)
}

func checkNetwork(t *testing.T, ns *netnstest.NS, routed bool) {
	t.Helper()
	routes := ns.Run(t, "ip", "route", "show", "proto", "98")
	if got := strings.Contains(routes, "10.42.2.0/24 via 10.42.2.0 dev vxlan.1 onlink"); got != routed {
		t.Errorf("route to node-b's pods: present %v, want %v:\n%s", got, routed, routes)
	}
	if addr := ns.Run(t, "ip", "addr", "show", "vxlan.1"); !strings.Contains(addr, "10.42.1.0/32") {
		t.Errorf("vxlan.1 lacks node-a's gateway 10.42.1.0/32:\n%s", addr)
	}
	if rules := ns.Run(t, "nft", "list", "table", "inet", "bramble"); !strings.Contains(rules, "masquerade") {
		t.Errorf("no masquerade rule:\n%s", rules)
	}
	if fwd := ns.Run(t, "cat", "/proc/sys/net/ipv4/ip_forward"); strings.TrimSpace(fwd) != "1" {
		t.Errorf("ip_forward: got %q, want 1", fwd)
	}
}

func TestNetworkConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{NetworkBackend: "flannel"}, "--network-backend"},
		{Config{ClusterCIDR: "10.42.0.0"}, "--cluster-cidr"},
	} {
		if err := tc.cfg.networkDefaults(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error naming %s", tc.cfg, err, tc.want)
		}
	}
	if _, err := newNetwork(&Config{NetworkBackend: "vxlan"}, "n", "", nil); err == nil || !strings.Contains(err.Error(), "--node-ip") {
		t.Errorf("no node IP: got %v, want an error naming --node-ip", err)
	}
}

// The server's --cluster-cidr, on this node's Node, replaces the agent's
// default for masquerading; a bad value keeps what the agent had.
func TestNetworkFollowsClusterCIDR(t *testing.T) {
	n := newTestNetwork(t, nil)
	if n.cluster.String() != DefaultClusterCIDR {
		t.Fatalf("cluster before: got %s, want %s", n.cluster, DefaultClusterCIDR)
	}
	n.followClusterCIDR("10.128.16.0/20")
	if n.cluster.String() != "10.128.16.0/20" {
		t.Fatalf("cluster after the annotation: got %s, want 10.128.16.0/20", n.cluster)
	}
	for _, bad := range []string{"nonsense", "fd00::/64"} {
		n.followClusterCIDR(bad)
		if n.cluster.String() != "10.128.16.0/20" {
			t.Errorf("after %q: got %s, want 10.128.16.0/20 kept", bad, n.cluster)
		}
	}
}
