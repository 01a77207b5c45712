package bench

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/bench/minicluster"
	"github.com/bramble-edge/bramble/datastore"
)

// BenchmarkDeployment1000 measures a 1,000-replica Deployment from
// `kubectl apply` (the real kubectl) to 1,000 pods bound, through the
// in-process server with its controllers and scheduler, onto 100 hollow
// nodes in a process of their own; then to all 1,000 Ready as the hollow
// agents report them (`available`). -short: 100 replicas on 10 nodes. It
// also reports the server's CPU (this process's) and its decodes per pod
// from the apply to all Ready.
//
//	go test -run '^$' -bench 'BenchmarkDeployment1000$' -benchtime 1x -timeout 30m ./bench/
func BenchmarkDeployment1000(b *testing.B) {
	replicas, nodes := 1000, 100
	if testing.Short() {
		replicas, nodes = 100, 10
	}
	for range b.N {
		c := startControllerCluster(b, nodes)
		wctx, cancel := context.WithCancel(context.Background())
		watch, err := c.Store.Watch(wctx, podsRes().Prefix(""), currentRev(b, c))
		if err != nil {
			b.Fatal(err)
		}
		load := loadAverage(b)
		b.ResetTimer()
		w := startWindow(b, c)
		kubectlApply(b, c, deploymentManifest("fleet", replicas))
		ph := waitPhases(b, watch, replicas, w.bound)
		w.end(b, c)
		b.StopTimer()
		cancel()
		w.report(b, ph, replicas, load)
		c.Stop()
	}
}

// applyToReady applies manifest with the real kubectl and waits until
// replicas pods are bound and then all Ready, reporting the seconds to
// each (readyMetric names the second), the server's CPU and decodes per
// pod over that span and the load average; it stops c.
func applyToReady(b *testing.B, c *minicluster.Cluster, manifest string, replicas int, readyMetric string) {
	b.Helper()
	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch, err := c.Store.Watch(wctx, podsRes().Prefix(""), currentRev(b, c))
	if err != nil {
		b.Fatal(err)
	}
	load := loadAverage(b)
	b.ResetTimer()
	start, cpu, decodes := time.Now(), processCPU(b), api.Decodes()
	kubectlApply(b, c, manifest)
	bound, ready := waitBoundAndReady(b, watch, replicas)
	cpu, decodes = processCPU(b)-cpu, api.Decodes()-decodes
	b.StopTimer()
	cancel()
	b.ReportMetric(bound.Sub(start).Seconds(), "s-to-bound")
	b.ReportMetric(ready.Sub(start).Seconds(), readyMetric)
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(replicas), "cpu-ms/pod")
	b.ReportMetric(float64(decodes)/float64(replicas), "decodes/pod")
	b.ReportMetric(load, "load1")
	c.Stop()
}

// startControllerCluster runs the in-process server with its controllers
// and nodes hollow nodes (64 CPUs, 256Gi, and hollowArgs) in a process of
// their own, and waits until they are stored.
func startControllerCluster(b *testing.B, nodes int, hollowArgs ...string) *minicluster.Cluster {
	b.Helper()
	c, err := minicluster.Start(context.Background(), minicluster.Config{Dir: b.TempDir(), Controllers: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Stop)
	h := startHollowAt(b, c.URL, c.Token, nodes, 10*time.Second, append([]string{"-cpu", "64", "-memory", "256Gi"}, hollowArgs...)...)
	waitStoredNodes(b, c, []*hollowProc{h}, nodes)
	return c
}

func deploymentManifest(name string, replicas int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: default}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      containers: [{name: app, image: "registry.lan/app:v1", resources: {requests: {cpu: 10m, memory: 16Mi}}}]
`, name, replicas)
}

func kubectlApply(b *testing.B, c *minicluster.Cluster, manifest string) {
	b.Helper()
	cmd := exec.Command("kubectl", "--kubeconfig", c.Kubeconfig, "apply", "-f", "-")
	cmd.Stdin = strings.NewReader(manifest)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("kubectl apply: %v: %s", err, out)
	}
}

// waitBoundAndReady follows pod events until want pods are bound and
// want are Ready, and returns when each happened.
func waitBoundAndReady(b *testing.B, watch <-chan []datastore.Event, want int) (bound, ready time.Time) {
	ph := waitPhases(b, watch, want, func() {})
	return ph.bound, ph.ready
}

// phases is when all pods were bound and all Ready, and the pod writes
// seen until then by kind: creates, bindings (the first write with a
// nodeName), and the rest (status reports' writes, mostly).
type phases struct {
	bound, ready              time.Time
	creates, binds, podOthers int
}

// tally counts one pod write; onNode says whether the pod was bound before.
func (ph *phases) tally(ev datastore.Event, wasOnNode, onNode bool) {
	switch {
	case ev.PrevKV == nil:
		ph.creates++
	case onNode && !wasOnNode:
		ph.binds++
	default:
		ph.podOthers++
	}
}

// waitPhases is waitBoundAndReady, calling onBound when all are bound.
func waitPhases(b *testing.B, watch <-chan []datastore.Event, want int, onBound func()) (ph phases) {
	b.Helper()
	bound, ready := &ph.bound, &ph.ready
	// Counted as they change: this goroutine is the benchmark's, and its
	// CPU is counted as the server's (a count over the maps per batch
	// was 1 % of it).
	onNode, isReady := map[string]bool{}, map[string]bool{}
	nOnNode, nReady := 0, 0
	timeout := time.After(10 * time.Minute)
	for bound.IsZero() || ready.IsZero() {
		select {
		case batch, ok := <-watch:
			if !ok {
				b.Fatal("pod watch ended")
			}
			for _, ev := range batch {
				if ev.Type == datastore.EventDelete {
					continue
				}
				v, was := ev.KV.Value, onNode[ev.KV.Key]
				now := was || bytes.Contains(v, []byte(`"nodeName":`))
				if now && !was {
					onNode[ev.KV.Key] = true
					nOnNode++
				}
				ph.tally(ev, was, now)
				wasReady, nowReady := isReady[ev.KV.Key], bytes.Contains(v, []byte(`"type":"Ready","status":"True"`))
				if nowReady != wasReady {
					isReady[ev.KV.Key] = nowReady
					if nowReady {
						nReady++
					} else {
						nReady--
					}
				}
			}
			if bound.IsZero() && nOnNode >= want {
				*bound = time.Now()
				onBound()
			}
			if ready.IsZero() && nReady >= want {
				*ready = time.Now()
			}
		case <-timeout:
			b.Fatalf("after 10 minutes: %d bound, %d Ready, want %d", nOnNode, nReady, want)
		}
	}
	return ph
}

// BenchmarkControllersIdle holds 10,000 objects (50 Deployments of 20
// Ready pods on 20 hollow nodes, their ReplicaSets, and ConfigMaps), waits
// until nothing changes, then profiles the server's process for 30 s and
// reports the CPU spent in the controllers' code (samples with a frame in
// package controllers or below) as a share of one core, beside the whole
// process's share in the profile and its CPU time as the kernel counts it
// (the server's other parts and the benchmark itself). -short: 1,000
// objects and 5 s.
//
//	go test -run '^$' -bench 'BenchmarkControllersIdle$' -benchtime 1x -timeout 30m ./bench/
func BenchmarkControllersIdle(b *testing.B) {
	deployments, configMaps, window := 50, 8900, 30*time.Second
	if testing.Short() {
		deployments, configMaps, window = 5, 890, 5*time.Second
	}
	for range b.N {
		c := startControllerCluster(b, 20)
		for i := range deployments {
			kubectlApply(b, c, deploymentManifest(fmt.Sprintf("d%03d", i), 20))
		}
		createConfigMaps(b, c, configMaps)
		waitAvailable(b, c, deployments, 20)
		objects := countObjects(b, c)
		time.Sleep(2 * time.Second) // let the last status writes settle
		rev := currentRev(b, c)
		var prof bytes.Buffer
		b.ResetTimer()
		before := processCPU(b)
		if err := pprof.StartCPUProfile(&prof); err != nil {
			b.Fatal(err)
		}
		time.Sleep(window)
		pprof.StopCPUProfile()
		used := processCPU(b) - before
		b.StopTimer()
		ctrl, total := controllerCPU(b, &prof)
		writes := currentRev(b, c) - rev
		b.ReportMetric(float64(objects), "objects")
		b.ReportMetric(100*ctrl.Seconds()/window.Seconds(), "ctrl-cpu-%")
		b.ReportMetric(100*total.Seconds()/window.Seconds(), "profiled-cpu-%")
		b.ReportMetric(float64(used.Milliseconds()), "rusage-cpu-ms")
		b.ReportMetric(float64(writes), "writes")
		c.Stop()
	}
}

func createConfigMaps(b *testing.B, c *minicluster.Cluster, n int) {
	b.Helper()
	for i := range n {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%05d", i), Namespace: "default"},
			Data: map[string]string{"k": "v"}}
		if _, err := c.Client.Create(context.Background(), cm); err != nil {
			b.Fatal(err)
		}
	}
}

func waitAvailable(b *testing.B, c *minicluster.Cluster, deployments, replicas int) {
	b.Helper()
	res, _ := api.Lookup("apps", "v1", "deployments")
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		l, err := c.Store.List(context.Background(), res.Prefix(""), datastore.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		done := 0
		for _, kv := range l.Items {
			obj, _, err := api.DecodeJSON(res, kv.Value, false)
			if err != nil {
				b.Fatal(err)
			}
			if d := obj.(*appsv1.Deployment); d.Status.AvailableReplicas == int32(replicas) && d.Status.UpdatedReplicas == int32(replicas) {
				done++
			}
		}
		if done == deployments {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	b.Fatalf("%d Deployments not all available within 10 minutes", deployments)
}

func countObjects(b *testing.B, c *minicluster.Cluster) int {
	b.Helper()
	l, err := c.Store.List(context.Background(), "/registry/", datastore.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return len(l.Items)
}

// controllerCPU sums a CPU profile's samples, and those with a frame in
// bramble's controllers packages.
func controllerCPU(b *testing.B, raw *bytes.Buffer) (ctrl, total time.Duration) {
	b.Helper()
	p, err := profile.Parse(raw)
	if err != nil {
		b.Fatalf("parse CPU profile: %v", err)
	}
	idx := len(p.SampleType) - 1 // cpu nanoseconds
	for _, s := range p.Sample {
		d := time.Duration(s.Value[idx])
		total += d
		if inControllers(s) {
			ctrl += d
		}
	}
	return ctrl, total
}

func inControllers(s *profile.Sample) bool {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function != nil && strings.Contains(line.Function.Name, "bramble/controllers") {
				return true
			}
		}
	}
	return false
}
