package policy

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// benchInput is the case: 1,000 pods on one node in 10 namespaces,
// 4,000 peer pods elsewhere, 200 policies (20 per namespace: 10 selecting
// every pod of the namespace, 10 one app each), with pod, namespace and
// combined selectors, an ipBlock with except, numbered and named ports.
func benchInput() *Input {
	in := &Input{Namespaces: map[string]map[string]string{}}
	for ns := 0; ns < 10; ns++ {
		name := "ns" + strconv.Itoa(ns)
		in.Namespaces[name] = map[string]string{"team": "t" + strconv.Itoa(ns%3)}
		for i := 0; i < 100; i++ {
			in.Local = append(in.Local, benchPod(name, i, 10, ns))
		}
		for i := 0; i < 400; i++ {
			in.Peers = append(in.Peers, benchPod(name, 100+i, 11+i/250, ns))
		}
		for p := 0; p < 20; p++ {
			in.Policies = append(in.Policies, benchPolicy(name, p))
		}
	}
	return in
}

func benchPod(ns string, i, net, nsIdx int) Pod {
	ip := netip.AddrFrom4([4]byte{10, byte(net), byte(nsIdx*25 + i/250*0 + (i%250)/10), byte(i % 250)})
	return Pod{Namespace: ns, Name: "p" + strconv.Itoa(i), UID: ns + "-" + strconv.Itoa(i),
		Labels: map[string]string{"app": "a" + strconv.Itoa(i%10), "role": []string{"client", "server"}[i%2]},
		IPs:    []netip.Addr{ip}, Ports: []Port{{Name: "http", Number: int32(8000 + i%3)}}}
}

func benchPolicy(ns string, p int) *networkingv1.NetworkPolicy {
	np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "np" + strconv.Itoa(p)}}
	if p >= 10 {
		np.Spec.PodSelector = metav1.LabelSelector{MatchLabels: map[string]string{"app": "a" + strconv.Itoa(p-10)}}
	}
	named, num := intstr.FromString("http"), intstr.FromInt32(int32(443+p))
	udp := corev1.ProtocolUDP
	np.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{
		{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "client"}}}},
			Ports: []networkingv1.NetworkPolicyPort{{Port: &named}, {Port: &num}}},
		{From: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "t" + strconv.Itoa(p%3)}},
			PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a" + strconv.Itoa(p%10)}}}}},
		{From: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "192.168.0.0/16", Except: []string{fmt.Sprintf("192.168.%d.0/24", p)}}}},
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: &num}}},
	}
	if p%2 == 0 {
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}
		np.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{
			{NamespaceSelector: &metav1.LabelSelector{}, PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"role": "server"}}}},
			Ports: []networkingv1.NetworkPolicyPort{{Port: &named}}}}
	}
	return np
}

// BenchmarkCompile200x1000 is the pure part: compile the case.
func BenchmarkCompile200x1000(b *testing.B) {
	in := benchInput()
	var rs *Ruleset
	for b.Loop() {
		rs = Compile(in)
	}
	reportSize(b, rs)
}

// BenchmarkProgram200x1000 compiles and programs the case into a
// network namespace's nftables, each iteration one transaction replacing the
// last (budget: <= 1 s). It reports the resident memory programming adds
// (the compiled Ruleset kept, the nftables code and buffers touched, at the
// agent's GOGC=25; budget
// <= 5 MiB) and, apart, the heap the input takes as Go values here (the
// agent's store holds its own pods anyway; the peers are what is new).
func BenchmarkProgram200x1000(b *testing.B) {
	n := newTestNet(b)
	f := openNetns(b, n.node)
	defer f.Close()
	a := NewApplier(Config{NetNSFd: int(f.Fd())})
	defer debug.SetGCPercent(debug.SetGCPercent(25)) // as `bramble agent` runs
	h0 := heapAlloc()
	in := benchInput()
	inputHeap := heapAlloc() - h0
	before := settledRSS(b)
	cpu0 := cpuTime(b)
	var rs *Ruleset
	for b.Loop() {
		rs = Compile(in)
		if err := a.Apply(context.Background(), rs); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	reportSize(b, rs)
	b.ReportMetric(float64(settledRSS(b)-before)/(1<<20), "MiB-rss-added")
	b.ReportMetric(float64(inputHeap)/(1<<20), "MiB-input-heap")
	runtime.KeepAlive(in)
	runtime.KeepAlive(rs)
}

func reportSize(b *testing.B, rs *Ruleset) {
	rules, elems := 0, 0
	for _, c := range rs.Chains {
		rules += len(c.Rules)
	}
	for _, s := range rs.Sets {
		elems += len(s.Ranges)
	}
	b.ReportMetric(float64(len(rs.Chains)), "chains")
	b.ReportMetric(float64(rules), "rules")
	b.ReportMetric(float64(len(rs.Sets)), "sets")
	b.ReportMetric(float64(elems+len(rs.Ingress)+len(rs.Egress)), "elements")
}

// settledRSS is VmRSS after a collection that gives freed memory back.
func settledRSS(b *testing.B) int64 {
	runtime.GC()
	debug.FreeOSMemory()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}

func heapAlloc() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// cpuTime is the process's user and system CPU time (the kernel's work on
// the transaction is system time of the sending thread), in nanoseconds: on a
// shared machine it says more than the wall clock.
func cpuTime(b *testing.B) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
