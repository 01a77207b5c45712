package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/bench/minicluster"
	"github.com/bramble-edge/bramble/datastore"
)

// BenchmarkScheduler measures the scheduler through the real server
// (in process: the API's admission path, SQLite with fsync, the binding
// subresource's logic) with hollow agents joined over the real join and
// MQTT, run by bench/hollow processes so the server is alone in this one.
// Throughput: the pods are created while the scheduler is off, then
// it starts; pods/s runs from the first binding to the last, as the
// datastore's watch sees them. Latency: with the scheduler running, pods
// are created by 8 clients and each one's time from its create to its
// binding is taken. -short runs 100 nodes only. load1 is the machine's
// 1-minute load average when the throughput run began; server-cpu-us/pod
// the CPU this process (the server) used from the scheduler's start to the
// last binding, per pod, which the machine's load disturbs less;
// server-cpu-us/pod-events the same to the last of the pods' Scheduled
// Events, and events-after-ms how long after the last binding that Event
// was stored (schedevents_test.go). With
// BRAMBLE_BENCH_PPROF_DIR set, the throughput run's CPU profile is written
// there.
//
//	go test -run '^$' -bench 'BenchmarkScheduler$/nodes=5000' -benchtime 1x -timeout 30m ./bench/
func BenchmarkScheduler(b *testing.B) {
	sizes := []struct{ nodes, pods int }{{1000, 3000}, {5000, 5000}}
	if testing.Short() {
		sizes = []struct{ nodes, pods int }{{100, 500}}
	}
	for _, sz := range sizes {
		b.Run(fmt.Sprintf("nodes=%d", sz.nodes), func(b *testing.B) {
			for range b.N {
				benchScheduler(b, sz.nodes, sz.pods)
			}
		})
	}
}

func benchScheduler(b *testing.B, nodes, pods int) {
	c, err := minicluster.Start(context.Background(), minicluster.Config{Dir: b.TempDir(), DisableScheduler: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Stop()
	procs := startMixedFleet(b, c, nodes)
	waitStoredNodes(b, c, procs, nodes)
	createPods(b, c, "burst", pods, 8)
	// Watched from here on, the pods' events are their bindings (and the
	// hollow agents' status reports that follow).
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rev := currentRev(b, c)
	watch, err := c.Store.Watch(wctx, podsRes().Prefix(""), rev)
	if err != nil {
		b.Fatal(err)
	}
	events := countScheduledEvents(wctx, c, rev, pods, "burst")
	load, cpu0 := loadAverage(b), processCPU(b)
	stopProfile := cpuProfile(b, fmt.Sprintf("scheduler-%d", nodes))
	b.ResetTimer()
	start := time.Now()
	if err := c.StartScheduler(); err != nil {
		b.Fatal(err)
	}
	binds := collectBinds(b, watch, pods, "burst", nil)
	cpu := processCPU(b) - cpu0
	stopProfile()
	b.ReportMetric(load, "load1")
	b.ReportMetric(float64(cpu.Microseconds())/float64(pods), "server-cpu-us/pod")
	first, last := binds[0], binds[len(binds)-1]
	b.StopTimer()
	reportScheduledEvents(b, events, pods, last, cpu0)
	cancel()
	b.ReportMetric(float64(pods-1)/last.Sub(first).Seconds(), "pods/s")
	b.ReportMetric(ms(first.Sub(start)), "first-bind-ms")
	lat := measureLatency(b, c, 1000)
	b.ReportMetric(ms(lat[len(lat)/2]), "latency-p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "latency-p99-ms")
	b.StartTimer()
}

// startMixedFleet runs n hollow nodes in bench/hollow processes of at
// most maxPerHollowProc nodes each, so neither this process (the server)
// nor any agent process runs out of file descriptors: a quarter amd64
// with 8 cores in zone z0, the rest arm64 with 4 in zone z1.
func startMixedFleet(b *testing.B, c *minicluster.Cluster, n int) []*hollowProc {
	var procs []*hollowProc
	for i, part := range []struct {
		prefix, arch, cpu, mem string
		nodes                  int
	}{{"amd", "amd64", "8", "16Gi", n / 4}, {"arm", "arm64", "4", "8Gi", n - n/4}} {
		for first := 0; first < part.nodes; first += maxPerHollowProc {
			size := min(maxPerHollowProc, part.nodes-first)
			procs = append(procs, startHollowAt(b, c.URL, c.Token, size, 30*time.Second,
				"-prefix", fmt.Sprintf("%s%d", part.prefix, first/maxPerHollowProc), "-arch", part.arch,
				"-cpu", part.cpu, "-memory", part.mem, "-labels", fmt.Sprintf("topology.kubernetes.io/zone=z%d", i),
				"-stagger", "1ms", "-join-workers", "16"))
		}
	}
	return procs
}

// maxPerHollowProc is the most hollow nodes one bench/hollow process runs.
const maxPerHollowProc = 1250

func podsRes() *api.Resource {
	r, _ := api.Lookup("", "v1", "pods")
	return r
}

func currentRev(b *testing.B, c *minicluster.Cluster) int64 {
	rev, err := c.Store.CurrentRevision(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return rev
}

// waitStoredNodes waits until n Nodes are stored and Ready, failing early
// when a hollow process exits.
func waitStoredNodes(b *testing.B, c *minicluster.Cluster, procs []*hollowProc, n int) {
	nodes, _ := api.Lookup("", "v1", "nodes")
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		l, err := c.Store.List(context.Background(), nodes.Prefix(""), datastore.ListOptions{})
		if err == nil && len(l.Items) >= n && strings.Count(string(joinValues(l.Items)), `"type":"Ready","status":"True"`) >= n {
			return
		}
		for _, h := range procs {
			select {
			case <-h.done:
				b.Fatalf("a hollow process exited before %d nodes were Ready:\n%s", n, h.logs)
			default:
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	b.Fatalf("%d nodes did not become Ready within 10 minutes", n)
}

func joinValues(kvs []*datastore.KeyValue) []byte {
	var out []byte
	for _, kv := range kvs {
		out = append(out, kv.Value...)
	}
	return out
}

// createPods creates n pods of one app through the API's admission path
// from workers goroutines; it returns each pod's create-return time.
func createPods(b *testing.B, c *minicluster.Cluster, prefix string, n, workers int) map[string]time.Time {
	var mu sync.Mutex
	created := make(map[string]time.Time, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				name := fmt.Sprintf("%s-%d", prefix, i)
				begin := time.Now()
				if _, err := c.Client.Create(context.Background(), benchSchedPod(name)); err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				created[name] = begin
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return created
}

func benchSchedPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "fleet"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "docker.io/library/busybox:1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}}}}}
}

var nodeNameField = []byte(`"nodeName"`)

// collectBinds reads pod events until want pods whose names start with
// prefix have been bound and returns the binding times in order. With
// bound set, it records each pod's binding time by name. (The prefix
// keeps other pods' status reports, which also carry a nodeName, from
// counting as bindings.)
func collectBinds(b *testing.B, watch <-chan []datastore.Event, want int, prefix string, bound map[string]time.Time) []time.Time {
	seen := map[string]bool{}
	var times []time.Time
	timeout := time.After(10 * time.Minute)
	for len(times) < want {
		select {
		case evs, ok := <-watch:
			if !ok {
				b.Fatal("pod watch closed")
			}
			now := time.Now()
			for _, ev := range evs {
				name := ev.KV.Key[strings.LastIndexByte(ev.KV.Key, '/')+1:]
				if ev.Type != datastore.EventUpdate || seen[ev.KV.Key] || !strings.HasPrefix(name, prefix+"-") ||
					!bytes.Contains(ev.KV.Value, nodeNameField) {
					continue
				}
				seen[ev.KV.Key] = true
				times = append(times, now)
				if bound != nil {
					bound[name] = now
				}
			}
		case <-timeout:
			b.Fatalf("only %d of %d pods bound within 10 minutes", len(times), want)
		}
	}
	return times
}

// measureLatency creates n pods with the scheduler running and returns
// each one's create-to-bound time, sorted.
func measureLatency(b *testing.B, c *minicluster.Cluster, n int) []time.Duration {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := c.Store.Watch(ctx, podsRes().Prefix(""), currentRev(b, c))
	if err != nil {
		b.Fatal(err)
	}
	bound := map[string]time.Time{}
	done := make(chan struct{})
	go func() { defer close(done); collectBinds(b, watch, n, "paced", bound) }()
	created := createPods(b, c, "paced", n, 8)
	<-done
	lat := make([]time.Duration, 0, n)
	for name, at := range created {
		lat = append(lat, bound[name].Sub(at))
	}
	slices.Sort(lat)
	return lat
}
