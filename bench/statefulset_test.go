package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/api"
)

// BenchmarkStatefulSet100 measures a 100-replica StatefulSet with
// podManagementPolicy Parallel from `kubectl apply` (the real kubectl) to
// its 100 pods bound and then all Running and Ready on 50 hollow nodes in
// a process of their own, through the in-process server with its
// controllers and scheduler; it also reports the server's CPU (this
// process's) per pod over that span. -short: 20 replicas on 10 nodes.
//
//	go test -run '^$' -bench 'BenchmarkStatefulSet100$' -benchtime 1x -timeout 30m ./bench/
func BenchmarkStatefulSet100(b *testing.B) {
	replicas, nodes := 100, 50
	if testing.Short() {
		replicas, nodes = 20, 10
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
		start, cpu, decodes := time.Now(), processCPU(b), api.Decodes()
		kubectlApply(b, c, statefulSetManifest("db", replicas))
		bound, ready := waitBoundAndReady(b, watch, replicas)
		cpu, decodes = processCPU(b)-cpu, api.Decodes()-decodes
		b.StopTimer()
		cancel()
		b.ReportMetric(bound.Sub(start).Seconds(), "s-to-bound")
		b.ReportMetric(ready.Sub(start).Seconds(), "s-to-running")
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(replicas), "cpu-ms/pod")
		b.ReportMetric(float64(decodes)/float64(replicas), "decodes/pod")
		b.ReportMetric(load, "load1")
		c.Stop()
	}
}

func statefulSetManifest(name string, replicas int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: %[1]s, namespace: default}
spec:
  replicas: %[2]d
  serviceName: %[1]s
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      containers: [{name: app, image: "registry.lan/db:v1", resources: {requests: {cpu: 10m, memory: 16Mi}}}]
`, name, replicas)
}
