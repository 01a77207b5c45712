package informer_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/registry"
)

var eventsRes = api.MustLookup("", "v1", "events")

// BenchmarkCacheHolds1000Events reports the Go heap the shared cache holds
// for 1,000 Scheduled Events written through the registry, and the decodes
// it made: followed (a handler: decoded as they are written, as every
// informer was before lazy.go), quiet (no handler: their stored values),
// quiet then listed (decoded on the first List), and uncached (no informer
// of Events: what the rest of the process holds, to subtract).
//
//	go test -run '^$' -bench 'CacheHolds1000Events' -benchtime 1x ./informer/
func BenchmarkCacheHolds1000Events(b *testing.B) {
	for _, v := range []string{"uncached", "followed", "quiet", "quiet-listed"} {
		b.Run(v, func(b *testing.B) {
			for range b.N {
				heldByEvents(b, v)
			}
		})
	}
}

func heldByEvents(b *testing.B, variant string) {
	b.StopTimer()
	e := newEnv(b)
	evs := e.cache.Informer(cmsRes)
	if variant != "uncached" {
		evs = e.cache.Informer(eventsRes)
	}
	if variant == "followed" {
		evs.AddHandler(informer.Handler{OnAdd: func(api.Object) {}})
	}
	e.start()
	before, dec := heapInUse(), api.Decodes()
	var rev int64
	for i := range 1000 {
		rev = e.scheduledEvent(b, i)
	}
	if err := e.cache.AwaitRevision(e.ctx, rev); err != nil {
		b.Fatal(err)
	}
	if variant == "quiet-listed" && len(evs.List("", nil)) != 1000 {
		b.Fatal("listed fewer than 1,000 events")
	}
	b.ReportMetric(float64(heapInUse()-before)/1024, "held-KiB")
	b.ReportMetric(float64(api.Decodes()-dec), "decodes")
	runtime.KeepAlive(evs)
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// scheduledEvent writes the Event the scheduler writes for pod i.
func (e *env) scheduledEvent(b *testing.B, i int) int64 {
	now := metav1.NewTime(time.Now())
	pod := fmt.Sprintf("fleet-5d8f7c9b6-%05d", i)
	obj, err := e.c.Create(e.ctx, &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", pod, 0x187a3c2b1d4e5f60+i), Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: pod, APIVersion: "v1",
			UID: "0b6f8a52-4e1d-4c3a-9f2b-7d5e6c4b3a21", ResourceVersion: "123456"},
		Reason: "Scheduled", Message: fmt.Sprintf("Successfully assigned default/%s to hollow-%d", pod, i%100),
		Source: corev1.EventSource{Component: "default-scheduler"}, FirstTimestamp: now, LastTimestamp: now,
		Count: 1, Type: corev1.EventTypeNormal, ReportingController: "default-scheduler", ReportingInstance: "default-scheduler-bramble",
	})
	if err != nil {
		b.Fatal(err)
	}
	rev, _ := registry.ParseResourceVersion(obj.GetResourceVersion())
	return rev
}
