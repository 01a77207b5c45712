package registry

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// graceEnv is a registry whose clock stands still at t0.
type graceEnv struct {
	t *testing.T
	r *Registry
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newGraceEnv(t *testing.T) graceEnv {
	r := newTestRegistry(t)
	r.now = func() time.Time { return t0 }
	return graceEnv{t: t, r: r}
}

// pod creates a pod on node (none when ""), with the spec's grace when
// grace >= 0, in phase, and finalizers.
func (e graceEnv) pod(name, node string, grace int64, phase corev1.PodPhase, fins ...string) *corev1.Pod {
	e.t.Helper()
	ctx := context.Background()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: fins},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if grace >= 0 {
		p.Spec.TerminationGracePeriodSeconds = &grace
	}
	o, err := e.r.Create(ctx, podsResource, "default", p, WriteOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	if phase != "" {
		p = o.(*corev1.Pod)
		p.Status.Phase = phase
		if o, err = e.r.Update(ctx, podsResource, "default", name, "status", p, false); err != nil {
			e.t.Fatal(err)
		}
	}
	return o.(*corev1.Pod)
}

func (e graceEnv) del(name string, grace *int64) {
	e.t.Helper()
	opts := &DeleteOptions{DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: grace}}
	if _, err := e.r.Delete(context.Background(), podsResource, "default", name, opts); err != nil {
		e.t.Fatal(err)
	}
}

// get answers the stored pod, nil once it is gone.
func (e graceEnv) get(name string) *corev1.Pod {
	e.t.Helper()
	o, err := e.r.Get(context.Background(), podsResource, "default", name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return o.(*corev1.Pod)
}

// wantMark fails unless the pod is stored with grace and now + grace.
func (e graceEnv) wantMark(name string, grace int64) {
	e.t.Helper()
	p := e.get(name)
	if p == nil {
		e.t.Fatalf("pod %s: gone, want it terminating with grace %d", name, grace)
	}
	g, ts := p.DeletionGracePeriodSeconds, p.DeletionTimestamp
	if g == nil || *g != grace || ts == nil || !ts.Time.Equal(t0.Add(time.Duration(grace)*time.Second)) {
		e.t.Fatalf("pod %s: got deletionGracePeriodSeconds %v, deletionTimestamp %v; want %d, %v", name, g, ts, grace, t0.Add(time.Duration(grace)*time.Second))
	}
}

func TestPodGraceChosenFromOptionsThenSpec(t *testing.T) {
	e := newGraceEnv(t)
	e.pod("spec", "n1", 45, "")
	e.pod("default", "n1", -1, "")
	e.pod("opts", "n1", 45, corev1.PodRunning)
	e.del("spec", nil)
	e.del("default", nil)
	e.del("opts", secs(7))
	e.wantMark("spec", 45)
	e.wantMark("default", 30)
	e.wantMark("opts", 7)
}

func TestPodGraceOnlyShortens(t *testing.T) {
	e := newGraceEnv(t)
	e.pod("p", "n1", 60, corev1.PodRunning)
	e.del("p", nil)
	e.del("p", secs(90)) // longer: ignored
	e.wantMark("p", 60)
	e.del("p", nil) // pending: unchanged
	e.wantMark("p", 60)
	e.del("p", secs(10))
	e.wantMark("p", 10)
	e.del("p", secs(0)) // what the node sends once it stopped the pod
	if e.get("p") != nil {
		t.Fatal("pod p: still stored after a delete with grace 0, want it gone")
	}
}

func TestPodRemovedAtOnce(t *testing.T) {
	e := newGraceEnv(t)
	e.pod("unbound", "", 30, "")
	e.pod("succeeded", "n1", 30, corev1.PodSucceeded)
	e.pod("failed", "n1", 30, corev1.PodFailed)
	e.pod("forced", "n1", 30, corev1.PodRunning)
	e.pod("nograce", "n1", 0, corev1.PodRunning)
	e.del("unbound", nil)
	e.del("succeeded", nil)
	e.del("failed", nil)
	e.del("forced", secs(0))
	e.del("nograce", nil)
	for _, n := range []string{"unbound", "succeeded", "failed", "forced", "nograce"} {
		if p := e.get(n); p != nil {
			t.Errorf("pod %s: still stored (deletionTimestamp %v), want it removed at once", n, p.DeletionTimestamp)
		}
	}
}

// A terminating pod takes status updates (its node reports them while it
// stops it); finalizers still hold it after the grace-0 delete.
func TestTerminatingPodUpdatesAndFinalizers(t *testing.T) {
	e := newGraceEnv(t)
	ctx := context.Background()
	e.pod("p", "n1", 30, corev1.PodRunning, "example.com/hold")
	e.del("p", nil)
	p := e.get("p")
	p.Finalizers = nil
	if _, err := e.r.Update(ctx, podsResource, "default", "p", "", p, false); err != nil {
		t.Fatal(err)
	}
	p = e.get("p")
	p.Status.Phase = corev1.PodFailed
	if _, err := e.r.Update(ctx, podsResource, "default", "p", "status", p, false); err != nil {
		t.Fatal(err)
	}
	e.wantMark("p", 30)
	e.pod("q", "n1", 30, corev1.PodRunning, "example.com/hold")
	e.del("q", nil)
	e.del("q", secs(0))
	if q := e.get("q"); q == nil || *q.DeletionGracePeriodSeconds != 0 {
		t.Fatalf("pod q: got stored %v, want it kept by its finalizer with grace 0", q != nil)
	}
}

func TestPodDeleteCollectionIsGraceful(t *testing.T) {
	e := newGraceEnv(t)
	e.pod("a", "n1", 20, corev1.PodRunning)
	e.pod("b", "", 20, "")
	opts := &DeleteOptions{DeleteOptions: &metav1.DeleteOptions{}}
	if _, err := e.r.DeleteCollection(context.Background(), podsResource, "default", ListOptions{}, opts); err != nil {
		t.Fatal(err)
	}
	e.wantMark("a", 20)
	if e.get("b") != nil {
		t.Fatal("unbound pod b: still stored, want it removed at once")
	}
}

func secs(n int64) *int64 { return &n }

// A namespace being deleted waits for its terminating pods: it goes once
// the node finished the last one.
func TestNamespaceWaitsForTerminatingPods(t *testing.T) {
	e := newGraceEnv(t)
	ctx := context.Background()
	if _, err := e.r.Create(ctx, namespacesResource, "", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if _, err := e.r.Create(ctx, podsResource, "shop", p, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.Delete(ctx, namespacesResource, "", "shop", nil); err != nil {
		t.Fatal(err)
	}
	pod, err := e.r.Get(ctx, podsResource, "shop", "web")
	if err != nil || pod.GetDeletionTimestamp() == nil {
		t.Fatalf("pod web: got stored %v (err %v), want it terminating", pod != nil, err)
	}
	if _, err := e.r.Get(ctx, namespacesResource, "", "shop"); err != nil {
		t.Fatalf("namespace shop: got %v, want it kept while its pod terminates", err)
	}
	opts := &DeleteOptions{DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: secs(0)}}
	if _, err := e.r.Delete(ctx, podsResource, "shop", "web", opts); err != nil {
		t.Fatal(err)
	}
	if _, err := e.r.Get(ctx, namespacesResource, "", "shop"); !apierrors.IsNotFound(err) {
		t.Fatalf("namespace shop after its last pod went: got %v, want NotFound", err)
	}
}
