package endpoints

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

// BenchmarkSlicesOnePodChange1000x10000: one pod change among 1,000
// Services / 10,000 endpoints, from the pod's status write until the
// cache shows both its EndpointSlice and its Endpoints changed; writes/op
// are the controllers' (ideally 2: one slice, one Endpoints).
//   - ready-flip: a pod of a 9-pod Service turns ready / not ready;
//   - readdress-big: a pod of the 1,009-pod Service (11 slices) whose
//     address sorts last gets a new one that sorts first (a pod replaced):
//     refilling the slices in address order would rewrite all 11.
func BenchmarkSlicesOnePodChange1000x10000(b *testing.B) {
	bc := newBenchCluster(b)
	b.Run("ready-flip", func(b *testing.B) {
		bc.measure(b, func(i int) func() bool {
			svc := fmt.Sprintf("svc-%d", 1+i%999)
			name := svc + "-0"
			ready := bc.pods[name].Status.Conditions[0].Status != corev1.ConditionTrue
			ip := bc.pods[name].Status.PodIP
			bc.setStatus(b, name, ip, ready)
			return func() bool { return bc.sliceHas(svc, ip, ready, "") && bc.endpointsHas(svc, ip, ready) }
		})
	})
	b.Run("readdress-big", func(b *testing.B) {
		bc.measure(b, func(i int) func() bool {
			name := fmt.Sprintf("big-%d", 1008-i%1009) // the last made: in the last slice
			bc.readdressed++
			n := bc.readdressed
			old, ip := bc.pods[name].Status.PodIP, fmt.Sprintf("10.0.%d.%d", n/200, 10+n%200)
			bc.setStatus(b, name, ip, true)
			return func() bool { return bc.sliceHas("big", ip, true, old) && bc.endpointsHas("big", ip, true) }
		})
	})
}

// measure runs change b.N times, each until its check holds.
func (bc *benchCluster) measure(b *testing.B, change func(i int) func() bool) {
	w0 := bc.counter.writes.Load()
	i := 0
	for b.Loop() {
		done := change(i)
		bc.until(b, time.Minute, done)
		i++
	}
	b.ReportMetric(float64(bc.counter.writes.Load()-w0)/float64(i), "writes/op")
}

// countingClient counts the writes the controllers make.
type countingClient struct {
	controllers.Client
	writes atomic.Int64
}

func (c *countingClient) Create(ctx context.Context, o api.Object) (api.Object, error) {
	c.writes.Add(1)
	return c.Client.Create(ctx, o)
}

func (c *countingClient) Update(ctx context.Context, o api.Object) (api.Object, error) {
	c.writes.Add(1)
	return c.Client.Update(ctx, o)
}

func (c *countingClient) Delete(ctx context.Context, r *api.Resource, ns, name string, o controllers.DeleteOptions) error {
	c.writes.Add(1)
	return c.Client.Delete(ctx, r, ns, name, o)
}

// benchCluster is 1,000 Services with 10,000 endpoints in one namespace
// (the worst case for a per-namespace scan): "big" with 1,009 pods (11
// slices), svc-1 .. svc-999 with 9 each; the endpoints and slice
// controllers (two workers each) run on the real registry and SQLite.
type benchCluster struct {
	*controllertest.Env
	counter  *countingClient
	sliceInf *controllers.Informer
	epInf    *controllers.Informer
	pods     map[string]*corev1.Pod
	// readdressed counts new addresses given, so each is new.
	readdressed int
}

func newBenchCluster(b *testing.B) *benchCluster {
	e := controllertest.New(b)
	bc := &benchCluster{Env: e, counter: &countingClient{Client: e.Client}, pods: map[string]*corev1.Pod{}}
	d := controllers.Deps{Client: bc.counter, Cache: e.Cache, Log: e.Log}
	c, sc := New(d), NewSlices(d)
	bc.sliceInf, bc.epInf = e.Cache.Informer(endpointSlices), e.Cache.Informer(endpoints)
	bc.sliceInf.AddIndex("bench-service", func(o api.Object) []string { return []string{o.GetLabels()[discoveryv1.LabelServiceName]} })
	e.Start()
	start := time.Now()
	bc.load(b)
	ctx, cancel := context.WithCancel(e.Ctx)
	done := make(chan struct{}, 2)
	go func() { c.Run(ctx, 2); done <- struct{}{} }()
	go func() { sc.Run(ctx, 2); done <- struct{}{} }()
	b.Cleanup(func() { cancel(); <-done; <-done })
	bc.until(b, 10*time.Minute, func() bool { return bc.sliceInf.Len() == 1010 && bc.epInf.Len() == 1000 })
	b.Logf("loaded 1,000 services / 10,000 pods and synced in %s; %d controller writes", time.Since(start).Round(time.Millisecond), bc.counter.writes.Load())
	return bc
}

func (bc *benchCluster) load(b *testing.B) {
	for s := 0; s < 1000; s++ {
		name, n := fmt.Sprintf("svc-%d", s), 9
		if s == 0 {
			name, n = "big", 1009
		}
		controllertest.MustCreate(bc.Env, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": name}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}})
		for i := 0; i < n; i++ {
			bc.addPod(b, name, fmt.Sprintf("%s-%d", name, i))
		}
	}
}

// addPod creates a ready pod of app with a unique address.
func (bc *benchCluster) addPod(b *testing.B, app, name string) {
	p := controllertest.MustCreate(bc.Env, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
		Labels: map[string]string{"app": app}}, Spec: corev1.PodSpec{NodeName: "pi-1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}})
	p.Status.Phase, p.Status.PodIP = corev1.PodRunning, benchIP(len(bc.pods))
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	bc.pods[name] = p
	bc.setStatus(b, name, benchIP(len(bc.pods)), true)
}

// setStatus gives the pod name its address and readiness.
func (bc *benchCluster) setStatus(b *testing.B, name, ip string, ready bool) {
	p := bc.pods[name].DeepCopy()
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p.Status.Phase, p.Status.PodIP = corev1.PodRunning, ip
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
	out, err := bc.Client.UpdateStatus(bc.Ctx, p)
	if err != nil {
		b.Fatalf("pod status: %v", err)
	}
	bc.pods[name] = out.(*corev1.Pod)
}

// benchIP is the n-th address of 10.64.0.0/10, from 10.64.0.10.
func benchIP(n int) string {
	n += 10
	return fmt.Sprintf("10.%d.%d.%d", 64+n>>16, n>>8&255, n&255)
}

func (bc *benchCluster) until(b *testing.B, timeout time.Duration, ok func() bool) {
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			b.Fatalf("not converged after %s", timeout)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// sliceHas reports whether one of the cached slices of svc has ip with
// the readiness ready, and (gone, when set) none has gone.
func (bc *benchCluster) sliceHas(svc, ip string, ready bool, gone string) bool {
	found := false
	for _, o := range bc.sliceInf.ByIndex("bench-service", svc) {
		s := o.(*discoveryv1.EndpointSlice)
		for _, e := range s.Endpoints {
			found = found || (e.Addresses[0] == ip && *e.Conditions.Ready == ready)
			if gone != "" && e.Addresses[0] == gone {
				return false
			}
		}
	}
	return found
}

// endpointsHas reports whether svc's Endpoints list ip as ready or not.
func (bc *benchCluster) endpointsHas(svc, ip string, ready bool) bool {
	o, ok := bc.epInf.Get("default", svc)
	if !ok {
		return false
	}
	for _, ss := range o.(*corev1.Endpoints).Subsets {
		list := ss.NotReadyAddresses
		if ready {
			list = ss.Addresses
		}
		for _, a := range list {
			if a.IP == ip {
				return true
			}
		}
	}
	return false
}
