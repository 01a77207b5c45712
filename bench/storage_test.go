package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/bench/minicluster"
	"github.com/bramble-edge/bramble/datastore"
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
		watch, err := c.Store.Watch(ctx, claimsRes().Prefix(""), currentRev(b, c))
		if err != nil {
			b.Fatal(err)
		}
		load := loadAverage(b)
		b.ResetTimer()
		start := time.Now()
		created := map[string]time.Time{}
		for i := range claims {
			name := fmt.Sprintf("data-%d", i)
			created["/registry/core/persistentvolumeclaims/default/"+name] = time.Now()
			createClaimAndPod(b, c, name)
		}
		took := waitClaimsBound(b, watch, created)
		b.StopTimer()
		cancel()
		slices.Sort(took)
		b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
		b.ReportMetric(ms(took[(len(took)*99-1)/100]), "p99-ms")
		b.ReportMetric(time.Since(start).Seconds(), "s-to-all-bound")
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
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app-" + strings.TrimPrefix(name, "data-"), Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.lan/app:v1"}},
			Volumes: []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}}}}
	if _, err := c.Client.Create(ctx, pod); err != nil {
		b.Fatalf("create pod for %s: %v", name, err)
	}
}

// waitClaimsBound follows claim events until every claim in created is
// Bound, and returns each one's create-to-Bound time.
func waitClaimsBound(b *testing.B, watch <-chan []datastore.Event, created map[string]time.Time) []time.Duration {
	b.Helper()
	took := map[string]time.Duration{}
	timeout := time.After(10 * time.Minute)
	for len(took) < len(created) {
		select {
		case batch, ok := <-watch:
			if !ok {
				b.Fatal("claim watch ended")
			}
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
