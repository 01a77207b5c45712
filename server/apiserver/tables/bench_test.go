package tables

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func BenchmarkTable100Pods(b *testing.B) {
	objs := benchPods(b, 100)
	r := res(b, "Pod")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Table(r, objs, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchPods(b *testing.B, n int) []api.Object {
	b.Helper()
	objs := make([]api.Object, n)
	for i := range objs {
		p := decodeYAML(b, "Pod", fmt.Sprintf(`
metadata: {name: web-%d, namespace: default, labels: {app: web}}
spec: {nodeName: pi1, containers: [{name: web, image: "nginx:1"}]}
status: {phase: Running, podIP: 10.42.0.%d, containerStatuses: [{name: web, ready: true, state: {running: {}}}]}`, i, i%250))
		p.SetCreationTimestamp(metav1.NewTime(time.Unix(1e9, 0)))
		objs[i] = p
	}
	return objs
}
