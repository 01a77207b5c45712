package proxy

import (
	"context"
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/agent/network/netnstest"
)

// benchInput is the case: 1,000 Services with 10 endpoints each
// (10,000 endpoints, a tenth on this node), every fourth a NodePort, every
// tenth with ClientIP affinity. shift moves one endpoint, so consecutive
// iterations differ by one endpoint change.
func benchInput(shift int) Input {
	in := Input{Node: "n1", NodeIPs: []netip.Addr{addr("192.0.2.1")}, ClusterCIDR: netip.MustParsePrefix("10.42.0.0/16")}
	for s := range 1000 {
		name := "s" + strconv.Itoa(s)
		ip := netip.AddrFrom4([4]byte{10, 43, byte(s >> 8), byte(s)}).String()
		var opts []func(*corev1.Service)
		if s%4 == 0 {
			opts = append(opts, nodePort("http", int32(30000+s)))
		}
		if s%10 == 0 {
			opts = append(opts, affinity)
		}
		in.Services = append(in.Services, service(name, ip, web, opts...))
		var eps []ep
		for e := range 10 {
			n := s*10 + e + shift*boolInt(s == 0 && e == 0)
			eps = append(eps, ep{netip.AddrFrom4([4]byte{10, 42, byte(n >> 8), byte(n)}).String(), "n" + strconv.Itoa(e), true})
		}
		in.Slices = append(in.Slices, slice(name, name+"-1", web8k, eps...))
	}
	return in
}

func boolInt(b bool) int {
	if b {
		return 60000
	}
	return 0
}

// BenchmarkSync1000x10000 compiles and programs the case into a
// network namespace, each iteration one full transaction replacing every
// svc-* chain (budget <= 2 s). It reports the resident memory the proxy
// adds (its last Plan kept; nftables code and buffers touched; at the
// agent's GOGC=25; budget <= +15 MiB).
func BenchmarkSync1000x10000(b *testing.B) {
	ns := netnstest.New(b, "bsb")
	f, err := os.Open("/run/netns/" + ns.Name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	a, err := NewApplier(int(f.Fd()))
	if err != nil {
		b.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	ins := []Input{benchInput(0), benchInput(1)}
	before := settledRSS(b)
	cpu0 := cpuTime(b)
	i := 0
	var p *Plan
	for b.Loop() {
		p = Compile(ins[i%2])
		i++
		if wrote, err := a.Apply(context.Background(), p); err != nil || !wrote {
			b.Fatalf("apply: wrote %v, %v", wrote, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(settledRSS(b)-before)/(1<<20), "MiB-rss-added")
	r := Render(p)
	rules := 0
	for _, c := range r.Chains {
		rules += len(c.Rules)
	}
	b.ReportMetric(float64(len(r.Chains)), "chains")
	b.ReportMetric(float64(rules), "rules")
	runtime.KeepAlive(ins)
}

// BenchmarkCompile1000x10000 is the pure part: compile and render.
func BenchmarkCompile1000x10000(b *testing.B) {
	in := benchInput(0)
	for b.Loop() {
		Render(Compile(in))
	}
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

// cpuTime is the process's user+system CPU time in nanoseconds.
func cpuTime(b *testing.B) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
