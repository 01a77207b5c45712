package overlay_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/agent/network/overlay"
)

func nodeWith(podCIDR, mac, ipAnnotation string, addrs ...corev1.NodeAddress) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Annotations: map[string]string{}},
		Spec: corev1.NodeSpec{PodCIDR: podCIDR}, Status: corev1.NodeStatus{Addresses: addrs}}
	if mac != "" {
		n.Annotations[overlay.AnnotationVXLANMAC] = mac
	}
	if ipAnnotation != "" {
		n.Annotations[overlay.AnnotationNodeIP] = ipAnnotation
	}
	return n
}

func TestRemoteFromNode(t *testing.T) {
	internal := corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}
	external := corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.1"}
	for _, tc := range []struct {
		name    string
		node    *corev1.Node
		ok      bool
		ip, err string
	}{
		{"annotation wins", nodeWith("10.42.1.0/24", "02:00:00:00:00:01", "192.168.1.9", internal), true, "192.168.1.9", ""},
		{"internal IP", nodeWith("10.42.1.0/24", "", "", external, internal), true, "10.0.0.1", ""},
		{"external IP last", nodeWith("10.42.1.0/24", "", "", external), true, "203.0.113.1", ""},
		{"no podCIDR yet", nodeWith("", "", "", internal), false, "10.0.0.1", ""},
		{"no address yet", nodeWith("10.42.1.0/24", "", ""), false, "<nil>", ""},
		{"bad podCIDR", nodeWith("10.42.1.0", "", "", internal), false, "", "spec.podCIDRs[0]"},
		{"bad MAC", nodeWith("10.42.1.0/24", "zz", "", internal), false, "", overlay.AnnotationVXLANMAC},
		{"bad IP", nodeWith("10.42.1.0/24", "", "10.0.0.256"), false, "", "node IP"},
	} {
		r, ok, err := overlay.RemoteFromNode(tc.node)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %v, want an error naming %s", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || ok != tc.ok || r.NodeIP.String() != tc.ip {
			t.Errorf("%s: got ip %v ok %v err %v, want ip %s ok %v", tc.name, r.NodeIP, ok, err, tc.ip, tc.ok)
		}
	}
}

// FuzzRemoteFromNode: what other nodes write on their Node (annotations,
// podCIDRs, addresses) reaches every agent; reading it never panics, and
// a routable result is complete.
func FuzzRemoteFromNode(f *testing.F) {
	f.Add("10.42.1.0/24", "02:00:00:00:00:01", "10.0.0.1", "10.0.0.2")
	f.Add("fd00::/64", "zz", "", "::1")
	f.Add("", "", "300.1.1.1", "")
	f.Fuzz(func(t *testing.T, cidr, mac, ipAnnotation, internal string) {
		n := nodeWith(cidr, mac, ipAnnotation, corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: internal})
		n.Spec.PodCIDRs = []string{cidr, cidr}
		r, ok, err := overlay.RemoteFromNode(n)
		if ok && (err != nil || r.NodeIP == nil || len(r.PodCIDRs) == 0) {
			t.Fatalf("routable but incomplete: %+v, %v", r, err)
		}
	})
}

func TestMACForIsStableUnicastLocal(t *testing.T) {
	a, b := overlay.MACFor("pi-1"), overlay.MACFor("pi-1")
	if a.String() != b.String() || a.String() == overlay.MACFor("pi-2").String() {
		t.Errorf("MACFor: got %s, %s, %s; want stable per name and different across names", a, b, overlay.MACFor("pi-2"))
	}
	if a[0]&1 != 0 || a[0]&2 == 0 {
		t.Errorf("MACFor(pi-1) = %s: want unicast, locally administered", a)
	}
}
