package bench

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/bench/hollow/hollownode"
	"github.com/bramble-edge/bramble/bench/minicluster"
	"github.com/bramble-edge/bramble/mqtt"
)

// BenchmarkConfigMapFanout1000 measures how long one ConfigMap update
// takes to reach 1,000 connected hollow agents, each running a pod that
// mounts it: from the start of the update call (an upper bound of the
// commit) to each agent's receipt of the Event, p50 and p99 over every
// receipt of 20 updates per b.N, one every 200 ms (budget: p99 <= 200 ms).
// The agents run in this process to share its clock; -short uses 100
// agents. load1 is the load average when the updates start; with
// BRAMBLE_BENCH_PPROF_DIR set, the updates are CPU-profiled there.
//
//	go test -run '^$' -bench ConfigMapFanout1000 -benchtime 1x -timeout 30m ./bench/
func BenchmarkConfigMapFanout1000(b *testing.B) {
	nodes := 1000
	if testing.Short() {
		nodes = 100
	}
	c, err := minicluster.Start(context.Background(), minicluster.Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Stop() // not Cleanup: the run with b.N == 1 must be gone before the next one
	rec := &receipts{ref: mqtt.ObjectRef{Resource: mqtt.ResourceConfigMaps, Namespace: "default", Name: "shared"}}
	f, err := hollownode.Start(context.Background(), hollownode.Config{Server: c.URL, Token: c.Token, Nodes: nodes,
		Prefix: "fan", StateDir: b.TempDir(), OnReceive: rec.onReceive})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Stop()
	cm := setUpFanout(b, c, f)
	load := loadAverage(b)
	stopProfile := cpuProfile(b, "fanout") // the updates only, not the set-up
	b.ResetTimer()
	var all []time.Duration
	for i := range 20 * b.N {
		time.Sleep(200 * time.Millisecond)
		cm.Data["i"] = fmt.Sprint(i)
		rec.expect(nodes)
		start := time.Now()
		out, err := c.Client.Update(context.Background(), cm)
		if err != nil {
			b.Fatal(err)
		}
		cm = out.(*corev1.ConfigMap)
		got := rec.wait(b, start, cm.ResourceVersion)
		slices.Sort(got)
		b.Logf("update %d (rv %s): p50 %.1f ms, max %.1f ms", i, cm.ResourceVersion, ms(got[len(got)/2]), ms(got[len(got)-1]))
		all = append(all, got...)
	}
	b.StopTimer()
	stopProfile()
	reportLatencies(b, all)
	b.ReportMetric(load, "load1")
}

// reportLatencies reports the p50, p99 and maximum of all (sorted here).
func reportLatencies(b *testing.B, all []time.Duration) {
	slices.Sort(all)
	b.ReportMetric(ms(all[len(all)/2]), "p50-ms")
	b.ReportMetric(ms(all[len(all)*99/100]), "p99-ms")
	b.ReportMetric(ms(all[len(all)-1]), "max-ms")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// setUpFanout creates the ConfigMap and one pod per node mounting it, and
// waits until every node holds the ConfigMap.
func setUpFanout(b *testing.B, c *minicluster.Cluster, f *hollownode.Fleet) *corev1.ConfigMap {
	b.Helper()
	var names []string
	for _, n := range f.Nodes() {
		names = append(names, n.Name())
	}
	out := createFanout(b, c, names)
	ref := mqtt.ObjectRef{Resource: mqtt.ResourceConfigMaps, Namespace: "default", Name: "shared"}
	deadline := time.Now().Add(5 * time.Minute)
	for _, n := range f.Nodes() {
		for {
			if _, ok := n.ResourceVersion(ref); ok {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("node %s never received ConfigMap shared", n.Name())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitQuiet(b, c)
	return out
}

// createFanout creates ConfigMap default/shared and, on each node, a pod
// that uses it.
func createFanout(b *testing.B, c *minicluster.Cluster, nodes []string) *corev1.ConfigMap {
	b.Helper()
	ctx := context.Background()
	out, err := c.Client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shared", Namespace: "default"},
		Data: map[string]string{"i": "start"}})
	if err != nil {
		b.Fatal(err)
	}
	for _, node := range nodes {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "user-" + node, Namespace: "default"},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "main", Image: "busybox:1.36",
				EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "shared"}}}}}}}}
		if _, err := c.Client.Create(ctx, pod); err != nil {
			b.Fatal(err)
		}
	}
	return out.(*corev1.ConfigMap)
}

// waitQuiet waits until nothing was written for two seconds (the pods'
// Running status, reported by the agents and written at a bounded rate,
// would otherwise share the measurement).
func waitQuiet(b *testing.B, c *minicluster.Cluster) {
	b.Helper()
	ctx := context.Background()
	last, since := int64(-1), time.Now()
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		rev, err := c.Store.CurrentRevision(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if rev != last {
			last, since = rev, time.Now()
		} else if time.Since(since) > 2*time.Second {
			return
		}
	}
	b.Fatal("the cluster kept writing for 5 minutes after the pods were created")
}

// receipts records, per update, when each node first received an Event
// carrying the ConfigMap at or after the expected revision.
type receipts struct {
	ref  mqtt.ObjectRef
	mu   sync.Mutex
	seen map[string]time.Time
	want int
	done chan struct{}
}

func (r *receipts) expect(nodes int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen, r.want, r.done = map[string]time.Time{}, nodes, make(chan struct{})
}

// onReceive runs on each node's MQTT delivery goroutine.
func (r *receipts) onReceive(node string, ev *mqtt.Event, at time.Time) {
	if !slices.ContainsFunc(ev.Changes, func(c mqtt.Change) bool { return c.ObjectRef == r.ref }) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		return
	}
	if _, ok := r.seen[node]; !ok {
		r.seen[node] = at
		if len(r.seen) == r.want {
			close(r.done)
		}
	}
}

// wait returns every node's latency from start; it fails after a minute.
func (r *receipts) wait(b *testing.B, start time.Time, rv string) []time.Duration {
	b.Helper()
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	select {
	case <-done:
	case <-time.After(time.Minute):
		r.mu.Lock()
		defer r.mu.Unlock()
		b.Fatalf("ConfigMap at resourceVersion %s reached %d of %d nodes in a minute", rv, len(r.seen), r.want)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]time.Duration, 0, len(r.seen))
	for _, at := range r.seen {
		out = append(out, at.Sub(start))
	}
	r.seen = nil
	return out
}
