package scheduler

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// benchCluster makes a mixed fleet: 60% amd64, 30% arm64, 10% arm/v7
// boards; 2, 4 or 8 CPUs with 2, 4 or 8 GiB; one node in ten tainted;
// four zones. A third of the nodes report that nginx:1.27 is built for
// amd64 and arm64, so the arm/v7 boards are filtered out for it.
func benchCluster(count int) []*corev1.Node {
	nodes := make([]*corev1.Node, 0, count)
	for i := range count {
		arch := []string{"amd64", "amd64", "amd64", "amd64", "amd64", "amd64", "arm64", "arm64", "arm64", "arm/v7"}[i%10]
		size := []string{"2", "4", "8"}[i%3]
		n := makeNode(fmt.Sprintf("node-%05d", i), nodeArch(arch), nodeAlloc(size, size+"Gi"),
			nodeLabels(corev1.LabelTopologyZone, fmt.Sprint("zone-", i%4)))
		if i%10 == 3 {
			nodeTaint("dedicated", "edge", corev1.TaintEffectNoSchedule)(n)
		}
		if i%3 == 0 {
			n.Annotations = map[string]string{AnnotationImagePlatforms: `{"nginx:1.27": ["linux/amd64", "linux/arm64"]}`}
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// benchPods makes count pods of one ReplicaSet.
func benchPods(prefix string, count int) []*podInfo {
	out := make([]*podInfo, count)
	for i := range out {
		out[i] = newPodInfo(makePod("default", fmt.Sprintf("%s-%d", prefix, i), owned("web"),
			podImage("nginx:1.27"), podReq("10m", "16Mi")))
	}
	return out
}

// nullBinder accepts every binding at once and counts them.
type nullBinder struct{ bound atomic.Int64 }

func (b *nullBinder) Bind(context.Context, *corev1.Pod, string) error {
	b.bound.Add(1)
	return nil
}
func (b *nullBinder) Unschedulable(context.Context, *corev1.Pod, string) error { return nil }
func (b *nullBinder) Event(context.Context, *corev1.Pod, string, string, string) error {
	return nil
}

// BenchmarkSchedule runs the whole in-process path: b.N pending pods go
// through the queue, the scheduling loop (snapshot update, filters,
// scores, assume) and the bind workers into a Binder that answers at once.
// The datastore and the API server are not involved.
func BenchmarkSchedule(b *testing.B) {
	for _, nodes := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			binder := &nullBinder{}
			s := benchScheduler(b, binder, nodes)
			ctx, cancel := context.WithCancel(context.Background())
			b.ResetTimer()
			start := time.Now()
			s.spawn(func() { s.loop(ctx) })
			s.startWorkers(ctx)
			for binder.bound.Load() < int64(b.N) {
				time.Sleep(100 * time.Microsecond)
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pods/s")
			b.StopTimer()
			cancel()
			s.wg.Wait()
		})
	}
}

// benchScheduler builds a Scheduler with the bench cluster in its cache
// and b.N pods in its queue, without starting anything.
func benchScheduler(b *testing.B, binder Binder, nodes int) *Scheduler {
	s, err := New(Config{Store: openStore(b, datastore.SQLiteConfig{}), Binder: binder, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range benchCluster(nodes) {
		s.cache.setNode(n)
	}
	s.cache.updateSnapshot(s.snap)
	for _, p := range benchPods("web", b.N) {
		s.queue.add(p)
	}
	return s
}

// BenchmarkScheduleCycle times one scheduling cycle alone (snapshot
// update, filters, scores, assume) for batches of 500 pods of one app; the
// cluster is emptied between batches, outside the timer.
func BenchmarkScheduleCycle(b *testing.B) {
	for _, nodes := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			e := newEnv(b, benchCluster(nodes))
			pods := benchPods("web", 500)
			e.cache.updateSnapshot(e.snap)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				p := pods[i%len(pods)]
				if i > 0 && i%len(pods) == 0 {
					b.StopTimer()
					for _, q := range pods {
						e.cache.forget(q.key, q.uid)
					}
					b.StartTimer()
				}
				e.cache.updateSnapshot(e.snap)
				node, err := e.algo.schedule(p, e.snap)
				if err != nil {
					b.Fatal(err)
				}
				if err := e.cache.assume(p, node); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}

// BenchmarkWatchEvent times what the pod watch does per event: decode the
// stored JSON, derive the podInfo, and recount the pod in the cache (a
// bound pod whose status changed, the most common event).
func BenchmarkWatchEvent(b *testing.B) {
	s := newIdleScheduler(b)
	for _, n := range benchCluster(100) {
		s.cache.setNode(n)
	}
	pod := makePod("default", "web-0", owned("web"), podImage("nginx:1.27"), podReq("10m", "16Mi"), podOn("node-00001"))
	data, err := api.Encode(pod)
	if err != nil {
		b.Fatal(err)
	}
	kv := &datastore.KeyValue{Key: podsResource.Key("default", "web-0"), Value: data}
	b.ReportAllocs()
	for i := range b.N {
		kv.ModRevision = int64(i + 1)
		s.pods.Upsert("default/web-0", kv)
	}
}

// BenchmarkPodUpsert times the pod handler alone on a bound pod's new
// versions (a status change each time), the decode left out.
func BenchmarkPodUpsert(b *testing.B) {
	s := newIdleScheduler(b)
	for _, n := range benchCluster(100) {
		s.cache.setNode(n)
	}
	versions := make([]*corev1.Pod, 2)
	for i := range versions {
		versions[i] = makePod("default", "web-0", owned("web"), podImage("nginx:1.27"), podReq("10m", "16Mi"), podOn("node-00001"))
		versions[i].Status.Phase = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning}[i]
	}
	h := podHandler{s}
	b.ReportAllocs()
	for i := range b.N {
		h.upsert(versions[i%2])
	}
}

// BenchmarkPodInfo compares deriving a bound version's podInfo afresh
// with reusing the previous version's derivations (podInfoFor).
func BenchmarkPodInfo(b *testing.B) {
	prev := makePod("default", "web-0", owned("web"), podImage("nginx:1.27"), podReq("10m", "16Mi"))
	bound := prev.DeepCopy()
	bound.Spec.NodeName = "node-00001"
	info := newPodInfo(prev)
	b.Run("derive", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			newPodInfo(bound)
		}
	})
	b.Run("reuse", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			podInfoFor(info, bound)
		}
	})
}
