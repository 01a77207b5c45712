package pods

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/network/dns"
	"github.com/bramble-edge/bramble/agent/network/sandbox"
	"github.com/bramble-edge/bramble/agent/runtime"
)

// A host-network pod gets the resolv.conf the kubelet writes for its
// dnsPolicy, bind-mounted by the real containerd: ClusterFirstWithHostNet
// the cluster DNS with the cluster's searches, ClusterFirst (the default)
// the node's own resolvers, as upstream. Both stay on the host's network.
// When the pod is deleted its resolv.conf goes with it.
func TestRealHostNetworkPodResolvConf(t *testing.T) {
	rt, _, _ := realRuntime(t)
	store, log := &fakeStore{}, &statusLog{}
	host := dns.HostConfig{Nameservers: []string{"192.0.2.53"}, Searches: []string{"lan"}}
	agentDir := filepath.Join(t.TempDir(), "agent")
	sm, err := sandbox.New(sandbox.Config{AgentDir: agentDir, ClusterDomain: "cluster.local",
		ResolvConf: func(pod *corev1.Pod) []byte {
			return []byte(dns.ResolvConf(pod, []string{"10.43.0.10"}, "cluster.local", host))
		}})
	if err != nil {
		t.Fatal(err)
	}
	m := hostDNSManager(t, rt, store, log, sm)
	withHost := hostNetPod("hostdns-a", corev1.DNSClusterFirstWithHostNet)
	plain := hostNetPod("hostdns-b", corev1.DNSClusterFirst)
	m.Sync([]*corev1.Pod{withHost, plain})
	waitResolv(t, m, withHost, "nameserver 10.43.0.10", "search default.svc.cluster.local svc.cluster.local cluster.local lan", "options ndots:5")
	waitResolv(t, m, plain, "nameserver 192.0.2.53", "search lan")
	for _, pod := range []*corev1.Pod{withHost, plain} {
		waitLog(t, podLog(m, pod), "stdout F net="+hostNetNS(t))
	}
	m.Delete(withHost.UID)
	waitGone(t, sm.ResolvFile(string(withHost.UID)))
}

func hostDNSManager(t *testing.T, rt runtime.Runtime, store *fakeStore, log *statusLog, net Network) *Manager {
	t.Helper()
	dataDir := t.TempDir()
	m, err := NewManager(rt, store.lookup, log.record, Config{
		DataDir: dataDir, NodeName: "pi-1", NodeIP: "127.0.0.1", SyncPeriod: 100 * time.Millisecond,
		BackoffInitial: 300 * time.Millisecond, BackoffMax: 2 * time.Second, DefaultGrace: 2 * time.Second,
		Logger: testLogger(t), PodLogDir: filepath.Join(dataDir, "log", "pods"),
		ContainerLogDir: filepath.Join(dataDir, "log", "containers"), Network: net,
	})
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	m.Start(context.Background())
	t.Cleanup(m.Stop)
	return m
}

// hostNetPod prints its resolv.conf, then its network namespace.
func hostNetPod(name string, policy corev1.DNSPolicy) *corev1.Pod {
	pod := busyboxPod(name, `while read -r l; do echo "resolv: $l"; done </etc/resolv.conf; echo "net=$(readlink /proc/self/ns/net)"; sleep 3600`)
	pod.Spec.HostNetwork, pod.Spec.DNSPolicy = true, policy
	return pod
}

func podLog(m *Manager, pod *corev1.Pod) string {
	return filepath.Join(m.cfg.PodLogDir, pod.Namespace+"_"+pod.Name+"_"+string(pod.UID), "main", "0.log")
}

func waitResolv(t *testing.T, m *Manager, pod *corev1.Pod, lines ...string) {
	t.Helper()
	for _, l := range lines {
		waitLog(t, podLog(m, pod), "stdout F resolv: "+l)
	}
}

// hostNetNS is the test's own network namespace, as readlink prints it.
func hostNetNS(t *testing.T) string {
	t.Helper()
	ns, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

func waitGone(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still there 20 s after the pod's deletion, want it removed", path)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
