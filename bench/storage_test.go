package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/bench/minicluster"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// BenchmarkLocalPathClaimBound measures WaitForFirstConsumer claims of the
// default local-path class from their create to Bound: each claim is
// created with a pod that uses it (in-process writes, one after the
// other), the scheduler picks a node with room and writes the selected
// node, the provisioner makes the volume and binds. 200 claims on 20
// hollow nodes reporting 64Gi of local storage each (-short: 50 on 5).
// p50 and p99 of create-to-Bound, and the time to all Bound.
//
//	go test -run '^$' -bench 'BenchmarkLocalPathClaimBound$' -benchtime 1x -timeout 20m ./bench/
func BenchmarkLocalPathClaimBound(b *testing.B) {
	claims, nodes := 200, 20
	if testing.Short() {
		claims, nodes = 50, 5
	}
	for range b.N {
		c := startStorageCluster(b, nodes)
		ctx, cancel := context.WithCancel(context.Background())
		watch := listwatch.NewWatch(c.Store, claimsRes().Prefix(""), currentRev(b, c), listwatch.WatchConfig{})
		load := loadAverage(b)
		b.ResetTimer()
		start := time.Now()
		created := map[string]time.Time{}
		for i := range claims {
			name := fmt.Sprintf("data-%d", i)
			created["/registry/core/persistentvolumeclaims/default/"+name] = time.Now()
			createClaimAndPod(b, c, name)
		}
		took := waitClaimsBound(ctx, b, watch, created)
		b.StopTimer()
		cancel()
		watch.Close()
		slices.Sort(took)
		b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
		b.ReportMetric(ms(took[(len(took)*99-1)/100]), "p99-ms")
		b.ReportMetric(time.Since(start).Seconds(), "s-to-all-bound")
		b.ReportMetric(load, "load1")
		c.Stop()
	}
}

// BenchmarkLocalPathClaimBoundOne is BenchmarkLocalPathClaimBound one
// claim at a time (each created once the one before is Bound): the path's
// own latency, without a burst's queueing. 50 claims on 5 hollow nodes.
//
//	go test -run '^$' -bench 'BenchmarkLocalPathClaimBoundOne$' -benchtime 1x -timeout 20m ./bench/
func BenchmarkLocalPathClaimBoundOne(b *testing.B) {
	const claims, nodes = 50, 5
	for range b.N {
		c := startStorageCluster(b, nodes)
		ctx, cancel := context.WithCancel(context.Background())
		watch := listwatch.NewWatch(c.Store, claimsRes().Prefix(""), currentRev(b, c), listwatch.WatchConfig{})
		load := loadAverage(b)
		b.ResetTimer()
		var took []time.Duration
		for i := range claims {
			name := fmt.Sprintf("one-%d", i)
			created := map[string]time.Time{"/registry/core/persistentvolumeclaims/default/" + name: time.Now()}
			createClaimAndPod(b, c, name)
			took = append(took, waitClaimsBound(ctx, b, watch, created)...)
		}
		b.StopTimer()
		cancel()
		watch.Close()
		slices.Sort(took)
		b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
		b.ReportMetric(ms(took[(len(took)*99-1)/100]), "p99-ms")
		b.ReportMetric(load, "load1")
		c.Stop()
	}
}

func claimsRes() *api.Resource { return api.MustLookup("", "v1", "persistentvolumeclaims") }

func startStorageCluster(b *testing.B, nodes int) *minicluster.Cluster {
	b.Helper()
	c, err := minicluster.Start(context.Background(), minicluster.Config{Dir: b.TempDir(), Controllers: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Stop)
	h := startHollowAt(b, c.URL, c.Token, nodes, 10*time.Second, "-cpu", "64", "-memory", "256Gi", "-local-storage", "64Gi")
	waitStoredNodes(b, c, []*hollowProc{h}, nodes)
	return c
}

// createClaimAndPod creates a 1Gi claim without a class (admission gives
// it local-path) and a pod mounting it.
func createClaimAndPod(b *testing.B, c *minicluster.Cluster, name string) {
	ctx := context.Background()
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	if _, err := c.Client.Create(ctx, pvc); err != nil {
		b.Fatalf("create claim %s: %v", name, err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app-" + name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.lan/app:v1"}},
			Volumes: []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}}}}
	if _, err := c.Client.Create(ctx, pod); err != nil {
		b.Fatalf("create pod for %s: %v", name, err)
	}
}

// waitClaimsBound follows claim events (resuming a watch the store cuts
// off) until every claim in created is Bound, and returns each one's
// create-to-Bound time.
func waitClaimsBound(ctx context.Context, b *testing.B, w *listwatch.Watch, created map[string]time.Time) []time.Duration {
	b.Helper()
	took := map[string]time.Duration{}
	timeout := time.After(10 * time.Minute)
	for len(took) < len(created) {
		ch, err := w.Chan(ctx)
		if err != nil {
			b.Fatalf("claim watch: %v", err)
		}
		select {
		case batch, ok := <-ch:
			w.Recv(batch, ok)
			now := time.Now()
			for _, ev := range batch {
				at, mine := created[ev.KV.Key]
				if _, done := took[ev.KV.Key]; mine && !done && ev.Type != datastore.EventDelete &&
					bytes.Contains(ev.KV.Value, []byte(`"phase":"Bound"`)) {
					took[ev.KV.Key] = now.Sub(at)
				}
			}
		case <-timeout:
			b.Fatalf("after 10 minutes: %d of %d claims Bound", len(took), len(created))
		}
	}
	out := make([]time.Duration, 0, len(took))
	for _, d := range took {
		out = append(out, d)
	}
	return out
}
