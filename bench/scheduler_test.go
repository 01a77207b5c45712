package bench

import (
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
	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
	"github.com/bramble-edge/bramble/bench/minicluster"
	"github.com/bramble-edge/bramble/datastore"
)

// BenchmarkScheduler measures the scheduler through the real server
// (in process: the API's admission path, SQLite with fsync, the binding
// subresource's logic) with hollow agents joined over the real join and
// MQTT. Throughput: the pods are created while the scheduler is off, then
// it starts; pods/s runs from the first binding to the last, as the
// datastore's watch sees them. Latency: with the scheduler running, pods
// are created by 8 clients and each one's time from its create to its
// binding is taken. -short runs 100 nodes only.
func BenchmarkScheduler(b *testing.B) {
	sizes := []struct{ nodes, pods int }{{1000, 3000}, {5000, 3000}}
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
	f := startMixedFleet(b, c, nodes)
	defer f()
	waitStoredNodes(b, c, nodes)
	createPods(b, c, "burst", pods, 8)
	// Watched from here on, the pods' events are their bindings (and the
	// hollow agents' status reports that follow).
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := c.Store.Watch(wctx, podsRes().Prefix(""), currentRev(b, c))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	if err := c.StartScheduler(); err != nil {
		b.Fatal(err)
	}
	binds := collectBinds(b, watch, pods, nil)
	cancel()
	first, last := binds[0], binds[len(binds)-1]
	b.StopTimer()
	b.ReportMetric(float64(pods-1)/last.Sub(first).Seconds(), "pods/s")
	b.ReportMetric(ms(first.Sub(start)), "first-bind-ms")
	lat := measureLatency(b, c, 1000)
	b.ReportMetric(ms(lat[len(lat)/2]), "latency-p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "latency-p99-ms")
	b.StartTimer()
}

// startMixedFleet joins n hollow nodes: a quarter amd64 with 8 cores, the
// rest arm64 with 4, spread over three zones; it returns their stop.
func startMixedFleet(b *testing.B, c *minicluster.Cluster, n int) func() {
	var stops []func()
	for i, part := range []struct {
		prefix, arch, cpu, mem string
		nodes                  int
	}{{"amd", "amd64", "8", "16Gi", n / 4}, {"arm", "arm64", "4", "8Gi", n - n/4}} {
		f, err := hollownode.Start(context.Background(), hollownode.Config{Server: c.URL, Token: c.Token, Nodes: part.nodes,
			Prefix: part.prefix, Arch: part.arch, CPU: resource.MustParse(part.cpu), Memory: resource.MustParse(part.mem),
			Labels: map[string]string{"topology.kubernetes.io/zone": fmt.Sprintf("z%d", i)}, StateDir: b.TempDir(),
			Heartbeat: 30 * time.Second, Stagger: time.Millisecond, JoinWorkers: 16})
		if err != nil {
			b.Fatal(err)
		}
		stops = append(stops, f.Stop)
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

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

// waitStoredNodes waits until n Nodes are stored and Ready.
func waitStoredNodes(b *testing.B, c *minicluster.Cluster, n int) {
	nodes, _ := api.Lookup("", "v1", "nodes")
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		l, err := c.Store.List(context.Background(), nodes.Prefix(""), datastore.ListOptions{})
		if err == nil && len(l.Items) >= n && strings.Count(string(joinValues(l.Items)), `"type":"Ready","status":"True"`) >= n {
			return
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
				if _, err := c.API.Create(context.Background(), benchSchedPod(name)); err != nil {
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

// collectBinds reads pod events until want pods have been bound and
// returns the binding times in order. With bound set, it records each
// pod's binding time by name.
func collectBinds(b *testing.B, watch <-chan []datastore.Event, want int, bound map[string]time.Time) []time.Time {
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
				if ev.Type != datastore.EventUpdate || seen[ev.KV.Key] || !strings.Contains(string(ev.KV.Value), `"nodeName"`) {
					continue
				}
				seen[ev.KV.Key] = true
				times = append(times, now)
				if bound != nil {
					bound[ev.KV.Key[strings.LastIndexByte(ev.KV.Key, '/')+1:]] = now
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
	go func() { defer close(done); collectBinds(b, watch, n, bound) }()
	created := createPods(b, c, "paced", n, 8)
	<-done
	lat := make([]time.Duration, 0, n)
	for name, at := range created {
		lat = append(lat, bound[name].Sub(at))
	}
	slices.Sort(lat)
	return lat
}
