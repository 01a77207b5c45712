package dns

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mdns "github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// bigSnapshot is services ClusterIP services with a named port, every
// tenth one headless with ten ready endpoints, and a pod per endpoint.
func bigSnapshot(services int) Snapshot {
	var s Snapshot
	port := []discoveryv1.EndpointPort{{Name: ptrTo("http"), Port: ptrTo(int32(8080))}}
	for i := range services {
		ns := fmt.Sprintf("ns%d", i%50)
		name := fmt.Sprintf("svc%d", i)
		if i%10 != 0 {
			s.Services = append(s.Services, service(ns, name, fmt.Sprintf("10.43.%d.%d", i/250, i%250+2),
				corev1.ServicePort{Name: "http", Port: 80}))
			continue
		}
		s.Services = append(s.Services, service(ns, name, corev1.ClusterIPNone))
		var eps []discoveryv1.Endpoint
		for j := range 10 {
			ip := fmt.Sprintf("10.42.%d.%d", i/25, (i%25)*10+j+1)
			eps = append(eps, endpoint(ip, fmt.Sprintf("%s-%d", name, j), true))
			p := &corev1.Pod{}
			p.Namespace, p.Name, p.Status.PodIP = ns, fmt.Sprintf("%s-%d", name, j), ip
			s.Pods = append(s.Pods, p)
		}
		s.EndpointSlices = append(s.EndpointSlices, slice(ns, name, port, eps...))
	}
	return s
}

// BenchmarkClusterQueries asks one server, over UDP from parallel clients,
// for the A record of one of 1,000 services (a tenth headless), and
// reports queries/s and the p99 latency one client sees.
func BenchmarkClusterQueries(b *testing.B) {
	s := New(Config{Addr: "127.0.0.1:0"})
	s.SetView(Build(bigSnapshot(1000), "cluster.local", 1))
	if err := s.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer s.Stop()
	hammer(b, s.Addr(), func(i int) string { return fmt.Sprintf("svc%d.ns%d.svc.cluster.local.", i%1000, i%1000%50) })
}

// BenchmarkForwardedCached asks for a name outside the cluster that a test
// upstream answered once: every later answer comes from the cache.
func BenchmarkForwardedCached(b *testing.B) {
	up := startUpstream(b)
	s := New(Config{Addr: "127.0.0.1:0", Upstreams: []string{up.addr}})
	if err := s.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer s.Stop()
	hammer(b, s.Addr(), func(int) string { return "example.test." })
}

// hammer runs b.N A queries of name(i) against addr from GOMAXPROCS
// clients, each on its own UDP socket, and reports queries/s and p99.
func hammer(b *testing.B, addr string, name func(int) string) {
	var mu sync.Mutex
	var lat []time.Duration
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		mine, err := askLoop(pb, addr, name)
		if err != nil {
			b.Error(err)
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	elapsed := time.Since(start)
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "queries/s")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}

func askLoop(pb *testing.PB, addr string, name func(int) string) ([]time.Duration, error) {
	c := &mdns.Client{Net: "udp", Timeout: 2 * time.Second}
	conn, err := c.Dial(addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var lat []time.Duration
	for i := 0; pb.Next(); i++ {
		m := new(mdns.Msg)
		m.SetQuestion(name(i), mdns.TypeA)
		t0 := time.Now()
		resp, _, err := c.ExchangeWithConn(m, conn)
		if err != nil || len(resp.Answer) == 0 {
			return lat, fmt.Errorf("query %s: %v %v", m.Question[0].Name, err, resp)
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, nil
}

// BenchmarkViewBuild builds the view of 1,000 services (100 headless with
// 1,000 endpoints and pods; the snapshot itself is the agent's store and
// not counted) and reports the heap the view holds, the process's RSS
// growth once it exists with a running server, and the build time.
func BenchmarkViewBuild(b *testing.B) {
	snap := bigSnapshot(1000)
	runtime.GC()
	rss0 := rssBytes(b)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v := Build(snap, "cluster.local", 1)
	s := New(Config{Addr: "127.0.0.1:0"})
	s.SetView(v)
	if err := s.Start(b.Context()); err != nil {
		b.Fatal(err)
	}
	defer s.Stop()
	runtime.GC()
	runtime.ReadMemStats(&after)
	rss1 := rssBytes(b)
	for b.Loop() {
		Build(snap, "cluster.local", 1)
	}
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "view-MiB")
	b.ReportMetric(float64(rss1-rss0)/(1<<20), "rss-growth-MiB")
}

// rssBytes is the process's resident set size.
func rssBytes(tb testing.TB) int64 {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		tb.Fatal(err)
	}
	f := strings.Fields(string(raw))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		tb.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}
