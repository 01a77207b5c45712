package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestBridgeConfIsBramblesNetwork(t *testing.T) {
	data, err := bridgeConf("cni9", netip.MustParsePrefix("10.42.3.0/24"), "/d/ipam", 1450)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Name    string
		Plugins []map[string]any
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	br := c.Plugins[0]
	ipam := br["ipam"].(map[string]any)
	if c.Name != NetworkName || br["bridge"] != "cni9" || br["ipMasq"] != false || br["isGateway"] != true ||
		br["hairpinMode"] != true || br["mtu"] != 1450.0 || ipam["dataDir"] != "/d/ipam" ||
		!strings.Contains(string(data), `"subnet": "10.42.3.0/24"`) {
		t.Errorf("bridge conf: got %s", data)
	}
	if len(c.Plugins) != 3 || c.Plugins[1]["type"] != "portmap" || c.Plugins[2]["type"] != "bandwidth" {
		t.Errorf("plugins: got %v, want bridge, portmap, bandwidth", c.Plugins)
	}
}

func TestPodFilesAndArgs(t *testing.T) {
	pod := testPod(strings.Repeat("x", 62)+"-abc", 1)
	if got := Hostname(pod); got != strings.Repeat("x", 62) {
		t.Errorf("Hostname of a 66-character name: got %q, want the first 63 without the trailing '-'", got)
	}
	pod = testPod("web", 1)
	pod.Spec.HostAliases = []corev1.HostAlias{{IP: "10.1.1.1", Hostnames: []string{"foo", "bar"}}}
	hosts := string(hostsFile(pod, []netip.Addr{netip.MustParseAddr("10.42.0.7")}, "cluster.local"))
	for _, want := range []string{"127.0.0.1\tlocalhost\n", "10.42.0.7\tweb\n", "10.1.1.1\tfoo\tbar\n"} {
		if !strings.Contains(hosts, want) {
			t.Errorf("hosts file: got %q, want a line %q", hosts, want)
		}
	}
	pod.Spec.Containers[0].Ports = append(pod.Spec.Containers[0].Ports,
		corev1.ContainerPort{ContainerPort: 53, HostPort: 5353, Protocol: corev1.ProtocolUDP, HostIP: "127.0.0.1"})
	if pm := portMappings(pod); len(pm) != 1 || pm[0]["protocol"] != "udp" || pm[0]["hostIP"] != "127.0.0.1" {
		t.Errorf("port mappings: got %v, want the one udp hostPort", pm)
	}
	pod.Annotations = map[string]string{IngressBandwidthAnnotation: "10M"}
	if bw, err := bandwidth(pod); err != nil || bw["ingressRate"] != int64(10e6) || bw["egressRate"] != nil {
		t.Errorf("bandwidth of 10M ingress: got %v, %v", bw, err)
	}
	pod.Annotations[EgressBandwidthAnnotation] = "lots"
	if _, err := bandwidth(pod); err == nil || !strings.Contains(err.Error(), EgressBandwidthAnnotation) {
		t.Errorf("bandwidth of %q: got %v, want an error naming the annotation", "lots", err)
	}
}

// With --network-backend none bramble writes no config and attaches pods
// with the first one the user put in the folder.
func TestUsersOwnConfig(t *testing.T) {
	dir := t.TempDir()
	m := newTestManager(t, dir, false)
	inPrivateNet(t, func() error {
		if _, err := m.Setup(bg, testPod("p", 1)); !errors.Is(err, ErrNoConfig) {
			return fmt.Errorf("Setup without any config: got %v, want ErrNoConfig", err)
		}
		user := fmt.Sprintf(`{"cniVersion":"1.0.0","name":"mine","plugins":[{"type":"bridge","bridge":"brtest0",
			"ipam":{"type":"host-local","ranges":[[{"subnet":"10.77.0.0/24"}]],"dataDir":%q}}]}`, filepath.Join(dir, "useripam"))
		if err := os.MkdirAll(m.cfg.ConfDir(), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(m.cfg.ConfDir(), "05-mine.conflist"), []byte(user), 0o644); err != nil {
			return err
		}
		if err := m.SetPodCIDR(testCIDR); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(m.cfg.ConfDir(), ConfFileName)); !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("bramble's config with backend none: got %v, want none written", err)
		}
		sb, err := m.Setup(bg, testPod("p", 1))
		if err != nil {
			return err
		}
		if !netip.MustParsePrefix("10.77.0.0/24").Contains(sb.IPs[0]) {
			return fmt.Errorf("pod IP with the user's config: got %v, want one of 10.77.0.0/24", sb.IPs)
		}
		return m.Teardown(bg, string(testPod("p", 1).UID))
	})
}

func TestMissingPluginsSayWhere(t *testing.T) {
	m, err := New(Config{AgentDir: t.TempDir(), BinDirs: []string{"/nonexistent/cni"}, OwnConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	inPrivateNet(t, func() error {
		defer unpinAll(m)
		if err := m.SetPodCIDR(testCIDR); err != nil {
			return err
		}
		_, err := m.Setup(bg, testPod("p", 1))
		if err == nil || !strings.Contains(err.Error(), "/nonexistent/cni") {
			return fmt.Errorf("Setup without plugins: got %v, want an error naming the plugin folder", err)
		}
		return nil
	})
}

// Pods lists what NetworkPolicy needs of every pod set up, host-network
// ones too (with the node's addresses), and forgets a pod torn down.
func TestPodsListsWhatPolicyNeeds(t *testing.T) {
	m := newTestManager(t, t.TempDir(), true)
	pod := testPod("host", 1)
	pod.Spec.HostNetwork = true
	sb, err := m.Setup(bg, pod) // no range yet: host-network pods need none
	if err != nil || sb.NetNS != "" {
		t.Fatalf("Setup of a host-network pod: got %+v, %v, want no namespaces", sb, err)
	}
	node := netip.MustParseAddr("192.168.1.5")
	got := m.Pods([]netip.Addr{node})
	if len(got) != 1 || !got[0].HostNetwork || got[0].IPs[0] != node || got[0].Labels["app"] != "host" ||
		len(got[0].Ports) != 1 || got[0].Ports[0] != (ContainerPort{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP}) {
		t.Fatalf("Pods: got %+v", got)
	}
	if err := m.Teardown(bg, string(pod.UID)); err != nil {
		t.Fatal(err)
	}
	if got := m.Pods(nil); len(got) != 0 {
		t.Fatalf("Pods after teardown: got %+v, want none", got)
	}
}

// SetOnChange's function runs on every set up and on the release of a pod
// it knew, not on the release of one it never set up.
func TestOnChangeOnSetupAndRelease(t *testing.T) {
	m := newTestManager(t, t.TempDir(), true)
	var calls int
	m.SetOnChange(func() { calls++ })
	pod := testPod("host", 1)
	pod.Spec.HostNetwork = true
	if _, err := m.Setup(bg, pod); err != nil {
		t.Fatal(err)
	}
	if err := m.Teardown(bg, string(pod.UID)); err != nil {
		t.Fatal(err)
	}
	if err := m.Teardown(bg, "never-set-up"); err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Fatalf("onChange calls: got %d, want 2 (setup, release)", calls)
	}
	if ips := m.RecordedIPs("never-set-up"); ips != nil {
		t.Fatalf("RecordedIPs without a record: got %v", ips)
	}
}
