package agent

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/network/sandbox"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/client"
)

// The applier asks for a policy compile after storing what policy reads
// (policies, namespaces, pods, peers) and after a resync, not otherwise.
func TestApplierKicksPolicy(t *testing.T) {
	a := NewApplier(openStore(t, t.TempDir()), &fakeManager{})
	kicks := 0
	a.SetOnPolicy(func() { kicks++ })
	apply := func(rev int64, c mqtt.Change) {
		t.Helper()
		if err := a.Apply(context.Background(), mqtt.Event{Type: mqtt.EventChanges, Rev: rev, Changes: []mqtt.Change{c}}); err != nil {
			t.Fatal(err)
		}
	}
	apply(1, change(t, mqtt.Added, ref("configmaps", "demo", "c"), map[string]any{"data": map[string]string{}}))
	if kicks != 0 {
		t.Fatalf("a ConfigMap kicked policy %d times, want 0", kicks)
	}
	apply(2, change(t, mqtt.Added, ref("networkpolicies", "demo", "deny"), map[string]any{"spec": map[string]any{}}))
	apply(3, change(t, mqtt.Added, ref(mqtt.ResourcePods, "demo", "web"), testPod("web", "u1")))
	if kicks != 2 {
		t.Fatalf("a NetworkPolicy and a pod kicked policy %d times, want 2", kicks)
	}
	if err := a.Resync(context.Background(), client.State{Rev: 4}); err != nil {
		t.Fatal(err)
	}
	if kicks != 3 {
		t.Fatalf("a resync kicked policy %d times in all, want 3", kicks)
	}
}

// localPods: labels from the stored pod (they change without a new
// sandbox), addresses from the sandbox, or from its record on disk before
// the worker set it up again; sandbox-only (static) pods as they are.
func TestPolicyLocalPods(t *testing.T) {
	dir := t.TempDir()
	store := openStore(t, filepath.Join(dir, "state"))
	sb, err := sandbox.New(sandbox.Config{AgentDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	host := testPod("host", "u-host")
	host.Spec.HostNetwork = true
	host.Labels = map[string]string{"role": "old"}
	static := testPod("static", "u-static")
	static.Spec.HostNetwork = true
	for _, p := range []*corev1.Pod{host, static} {
		if _, err := sb.Setup(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	stored := *host
	stored.Labels = map[string]string{"role": "new"}
	restarted := testPod("restarted", "u-re")
	writeRecord(t, dir, restarted.UID, `{"uid":"u-re","ready":true,"ips":["10.42.1.9"]}`)
	waiting := testPod("waiting", "u-wait")
	if err := store.Apply([]mqtt.Change{
		change(t, mqtt.Added, ref(mqtt.ResourcePods, "default", "host"), &stored),
		change(t, mqtt.Added, ref(mqtt.ResourcePods, "default", "restarted"), restarted),
		change(t, mqtt.Added, ref(mqtt.ResourcePods, "default", "waiting"), waiting),
	}, 1); err != nil {
		t.Fatal(err)
	}
	p := newNetPolicy(store, sb, net.ParseIP("192.168.5.1"), slog.New(slog.DiscardHandler))
	got := map[string]string{}
	for _, lp := range p.localPods() {
		got[lp.Name] = lp.Labels["role"] + " " + fmtIPs(lp.IPs)
	}
	want := map[string]string{"host": "new 192.168.5.1", "restarted": " 10.42.1.9", "static": " 192.168.5.1"}
	if len(got) != len(want) {
		t.Fatalf("local pods: got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("local pod %s: got %q, want %q", k, got[k], v)
		}
	}
}

func writeRecord(t *testing.T, agentDir string, uid types.UID, js string) {
	t.Helper()
	d := filepath.Join(agentDir, "network", "sandboxes", string(uid))
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "sandbox.json"), []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}
}

func fmtIPs(ips []netip.Addr) string {
	s := ""
	for _, ip := range ips {
		s += ip.String()
	}
	return s
}
