package bench

import (
	"fmt"
	"testing"
)

// BenchmarkStatefulSet100 measures a 100-replica StatefulSet with
// podManagementPolicy Parallel from `kubectl apply` (the real kubectl) to
// its 100 pods bound and then all Running and Ready on 50 hollow nodes in
// a process of their own, through the in-process server with its
// controllers and scheduler; it also reports the server's CPU (this
// process's) per pod over that span. -short: 20 replicas on 10 nodes.
//
//	go test -run '^$' -bench 'BenchmarkStatefulSet100$' -benchtime 1x -timeout 30m ./bench/
func BenchmarkStatefulSet100(b *testing.B) { benchStatefulSet(b, false) }

// BenchmarkStatefulSet100Claims is BenchmarkStatefulSet100 with a
// volumeClaimTemplate: each pod's claim is made by the controller, bound
// to a local-path volume on the node the scheduler picks (the hollow
// nodes report 64Gi of local storage), before the pod counts as bound.
//
//	go test -run '^$' -bench 'BenchmarkStatefulSet100Claims$' -benchtime 1x -timeout 30m ./bench/
func BenchmarkStatefulSet100Claims(b *testing.B) { benchStatefulSet(b, true) }

func benchStatefulSet(b *testing.B, claims bool) {
	replicas, nodes := 100, 50
	if testing.Short() {
		replicas, nodes = 20, 10
	}
	for range b.N {
		// hollow nodes that report local storage, so that local-path
		// claims can be placed
		c := startControllerCluster(b, nodes, "-local-storage", "64Gi")
		applyToReady(b, c, statefulSetManifest("db", replicas, claims), replicas, "s-to-running")
	}
}

func statefulSetManifest(name string, replicas int, claims bool) string {
	extra := ""
	if claims {
		extra = `  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 64Mi}}}
`
	}
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
%[3]s`, name, replicas, extra)
}
