package agent

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/agent/network/sandbox"
)

func TestDecodeNodeNet(t *testing.T) {
	nn, err := decodeNodeNet([]byte(`{"metadata":{"name":"n","annotations":{"bramble.io/network-backend":"none"}},"spec":{"podCIDR":"10.42.7.0/24"}}`))
	if err != nil || nn.PodCIDR != "10.42.7.0/24" || nn.Backend != "none" {
		t.Fatalf("decode: got %+v, %v, want 10.42.7.0/24 and none", nn, err)
	}
	if _, err := decodeNodeNet([]byte(`{"spec":{"podCIDR":"10.42.7.0"}}`)); err == nil || !strings.Contains(err.Error(), "spec.podCIDR") {
		t.Fatalf("decode of a bad podCIDR: got %v, want an error naming spec.podCIDR", err)
	}
}

func FuzzDecodeNodeNet(f *testing.F) {
	f.Add([]byte(`{"spec":{"podCIDR":"10.42.0.0/24"}}`))
	f.Add([]byte(`{"metadata":{"annotations":{"bramble.io/network-backend":"host-gw"}}}`))
	f.Add([]byte(`{"spec":{"podCIDR":7}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		nn, err := decodeNodeNet(body)
		if err != nil {
			return
		}
		if nn.PodCIDR != "" {
			if _, err := decodeNodeNet([]byte(`{"spec":{"podCIDR":"` + nn.PodCIDR + `"}}`)); err != nil {
				t.Fatalf("accepted podCIDR %q does not decode again: %v", nn.PodCIDR, err)
			}
		}
	})
}

// The pod range learnt from the server is kept, so a start without the
// server configures the sandboxes at once; a backend of none configures
// them without a range and writes no CNI config.
func TestNodeNetworkIsSavedAndBackendNone(t *testing.T) {
	prepared := 0
	prepareHost = func() error { prepared++; return nil }
	t.Cleanup(func() { prepareHost = sandbox.PrepareHost })
	dir := t.TempDir()
	cfg := &Config{DataDir: dir, Logger: slog.New(slog.DiscardHandler), CNIBinDirs: []string{"/usr/lib/cni"}, CNIBridge: "brx"}
	n, err := newNodeNetwork(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.apply(nodeNet{Backend: "vxlan"}); err != nil || n.sb.PodCIDR().IsValid() {
		t.Fatalf("apply without a range: got %v, range %v, want it to wait", err, n.sb.PodCIDR())
	}
	if err := n.apply(nodeNet{PodCIDR: "10.42.9.0/24", Backend: "vxlan"}); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "agent", "etc", "cni", "net.d", "10-bramble.conflist")
	if data, err := os.ReadFile(conf); err != nil || !strings.Contains(string(data), "10.42.9.0/24") {
		t.Fatalf("CNI config: got %q, %v, want the node's range", data, err)
	}
	again, err := newNodeNetwork(cfg)
	if err != nil || again.sb.PodCIDR().String() != "10.42.9.0/24" {
		t.Fatalf("after a restart: range %v, %v, want 10.42.9.0/24 from the saved file", again.sb.PodCIDR(), err)
	}
	cfg.NetworkBackend = "bogus"
	if _, err := newNodeNetwork(cfg); err == nil || !strings.Contains(err.Error(), "--network-backend") {
		t.Fatalf("bad --network-backend: got %v, want an error naming the flag", err)
	}
	cfg.NetworkBackend = "none"
	none, err := newNodeNetwork(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(conf); !os.IsNotExist(err) {
		t.Fatalf("backend none: got CNI config %v, want bramble's removed", err)
	}
	_ = none
	if prepared != 3 {
		t.Errorf("host settings applied %d times, want once per configured start (3)", prepared)
	}
}

func TestDefaultRouteIface(t *testing.T) {
	table := "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
		"wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n" +
		"eth0\t00000000\t0100000A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n" +
		"eth0\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n" +
		"cni0\t00002A0A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
	if got := defaultRouteIface(table); got != "eth0" {
		t.Errorf("default route interface: got %q, want eth0 (the lower metric)", got)
	}
	if got := defaultRouteIface(table[:strings.Index(table, "wlan0")]); got != "" {
		t.Errorf("no default route: got %q, want none", got)
	}
}

// Pods get the cluster DNS first (dnsPolicy ClusterFirst) when the node
// runs it, and the node's own resolvers when it does not.
func TestPodResolvConf(t *testing.T) {
	host := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(host, []byte("nameserver 192.0.2.53\nsearch lan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"}}
	cfg := &Config{ClusterDNS: "10.43.0.10", ClusterDomain: "cluster.local", ResolvConf: host, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	got := string(podResolvConf(cfg)(pod))
	for _, want := range []string{"nameserver 10.43.0.10", "search shop.svc.cluster.local svc.cluster.local cluster.local lan", "options ndots:5"} {
		if !strings.Contains(got, want) {
			t.Errorf("with cluster DNS: got %q, want a line %q", got, want)
		}
	}
	cfg.DisableClusterDNS = true
	got = string(podResolvConf(cfg)(pod))
	if !strings.Contains(got, "nameserver 192.0.2.53") || strings.Contains(got, "10.43.0.10") {
		t.Errorf("without cluster DNS: got %q, want the node's resolvers only", got)
	}
}
