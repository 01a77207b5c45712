package policy

import (
	"context"
	"encoding/json"
	"net/netip"
	"os/exec"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/mqtt"
)

// mapSource is a store holding a few objects.
type mapSource map[mqtt.ObjectRef]json.RawMessage

func (m mapSource) List(resource string) map[mqtt.ObjectRef]json.RawMessage {
	out := map[mqtt.ObjectRef]json.RawMessage{}
	for ref, raw := range m {
		if ref.Resource == resource {
			out[ref] = raw
		}
	}
	return out
}

func storeFixture() mapSource {
	return mapSource{
		{Resource: "namespaces", Name: "prod"}: json.RawMessage(`{"metadata":{"name":"prod","labels":{"team":"a"}}}`),
		{Resource: "networkpolicies", Namespace: "prod", Name: "web"}: json.RawMessage(`{"metadata":{"namespace":"prod","name":"web"},
			"spec":{"podSelector":{"matchLabels":{"app":"web"}},"ingress":[{"from":[{"namespaceSelector":{"matchLabels":{"team":"a"}},"podSelector":{"matchLabels":{"role":"client"}}}],"ports":[{"port":"http"}]}]}}`),
		{Resource: mqtt.ResourcePeerPods, Namespace: "prod", Name: "client"}: json.RawMessage(`{"metadata":{"namespace":"prod","name":"client","labels":{"role":"client"}},"ips":["10.0.1.2"]}`),
	}
}

func webPod() Pod {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "web", UID: "w", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}
	return LocalPod(pod, []netip.Addr{netip.MustParseAddr("10.0.0.2")})
}

// TestInputFromStore: policies, namespaces and peers from the store, local
// pods from their specs, give the rules upstream's semantics ask for.
func TestInputFromStore(t *testing.T) {
	in, err := InputFrom(storeFixture(), []Pod{webPod()})
	if err != nil {
		t.Fatal(err)
	}
	rs := Compile(in)
	for _, e := range []expect{ok(tcp("10.0.1.2", "10.0.0.2", 8080)), blocked(tcp("10.0.1.2", "10.0.0.2", 80)),
		blocked(tcp("10.0.1.3", "10.0.0.2", 8080))} {
		if got := allowed(t, rs, e.p); got != e.want {
			t.Errorf("%s: got allowed=%v, want %v", describe(e.p), got, e.want)
		}
	}
}

func TestInputFromStoreNamesABadObject(t *testing.T) {
	src := storeFixture()
	src[mqtt.ObjectRef{Resource: mqtt.ResourcePeerPods, Namespace: "prod", Name: "bad"}] = json.RawMessage(`{"metadata":{"namespace":"prod","name":"bad"},"ips":["nope"]}`)
	_, err := InputFrom(src, nil)
	if err == nil || !strings.Contains(err.Error(), "peerpods/prod/bad") || !strings.Contains(err.Error(), "ips[0]") {
		t.Fatalf("got %v, want an error naming peerpods/prod/bad and ips[0]", err)
	}
}

// TestEnforceFromStore programs the kernel from the store alone.
func TestEnforceFromStore(t *testing.T) {
	n := newTestNet(t)
	f := openNetns(t, n.node)
	defer f.Close()
	a := NewApplier(Config{NetNSFd: int(f.Fd())})
	if _, err := a.Enforce(context.Background(), storeFixture(), []Pod{webPod()}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ip", "netns", "exec", n.node, "nft", "list", "map", "inet", TableName, IngressMap).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "10.0.0.2 : jump policy-ig-0") {
		t.Fatalf("ingress map: got %s (%v), want 10.0.0.2 mapped to its group", out, err)
	}
	if err := a.Remove(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, _ = exec.Command("ip", "netns", "exec", n.node, "nft", "list", "table", "inet", TableName).CombinedOutput()
	if strings.Contains(string(out), "policy-") {
		t.Fatalf("after Remove: got\n%s\nwant no policy chains or sets", out)
	}
}

// TestNoPolicyTouchesNothing: a node whose pods no policy selects gets no
// table, chain or set from the policy part.
func TestNoPolicyTouchesNothing(t *testing.T) {
	n := newTestNet(t)
	f := openNetns(t, n.node)
	defer f.Close()
	a := NewApplier(Config{NetNSFd: int(f.Fd())})
	if _, err := a.Enforce(context.Background(), mapSource{}, []Pod{webPod()}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ip", "netns", "exec", n.node, "nft", "list", "ruleset").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("no policy: got ruleset %q (%v), want it empty", out, err)
	}
}
