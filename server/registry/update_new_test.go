package registry

import (
	"bytes"
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
)

func runningStatus(ip string) corev1.PodStatus {
	at := metav1.Unix(1700000000, 0)
	return corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: at}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Image: "nginx", Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: at}}}}}
}

// statusOnly is a pod made for one status write: what names it and its
// status, no spec.
func statusOnly(p *corev1.Pod, rv string, st corev1.PodStatus) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID, ResourceVersion: rv},
		Status: st}
}

// TestUpdateStatusNewStoresWhatUpdateStatusStores: a status write the
// registry takes over stores the bytes the copying path stores, and
// answers with the object it took.
func TestUpdateStatusNewStoresWhatUpdateStatusStores(t *testing.T) {
	r := newTestRegistry(t)
	c, ctx := r.Client(), context.Background()
	out, err := c.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}})
	if err != nil {
		t.Fatal(err)
	}
	created := out.(*corev1.Pod)
	key := podsResource.Key("default", "web")
	stored := func() []byte {
		kv, err := r.store.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		return kv.Value
	}
	write := func(st corev1.PodStatus) {
		full := created.DeepCopy()
		full.ResourceVersion = ""
		full.Status = st
		if _, err := c.UpdateStatus(ctx, full); err != nil {
			t.Fatal(err)
		}
	}
	write(runningStatus("10.0.0.1"))
	want := stored()
	write(created.Status)

	cur, err := c.Get(ctx, podsResource, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	var built []*corev1.Pod
	got, err := c.UpdateStatusNew(ctx, func() api.Object {
		p := statusOnly(created, cur.GetResourceVersion(), runningStatus("10.0.0.1"))
		built = append(built, p)
		return p
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(built) != 1 || got != api.Object(built[0]) {
		t.Fatalf("got %d pods built and answer %p, want the one built (%v)", len(built), got, built)
	}
	if b := stored(); !bytes.Equal(b, want) {
		t.Fatalf("stored\n%s\nwant (as UpdateStatus stores it)\n%s", b, want)
	}
	if p := got.(*corev1.Pod); p.Labels["app"] != "web" || len(p.Spec.Containers) != 1 || p.ResourceVersion == cur.GetResourceVersion() {
		t.Fatalf("answer lacks the stored metadata and spec or its new revision: %+v", p)
	}
}

// raceAdmitter changes the pod, behind the write it admits, the first
// time it admits a status write, so that write conflicts and is retried;
// it marks and records every object it admits.
type raceAdmitter struct {
	c      *Client
	raced  bool
	seen   []api.Object
	marked []bool
}

func (p *raceAdmitter) Admit(ctx context.Context, a *Attributes) (func(bool), error) {
	if a.Subresource != "status" {
		return func(bool) {}, nil
	}
	p.seen = append(p.seen, a.Object)
	p.marked = append(p.marked, a.Object.(*corev1.Pod).Status.Message != "")
	a.Object.(*corev1.Pod).Status.Message = "admitted"
	if !p.raced {
		p.raced = true
		cur, err := p.c.Get(ctx, podsResource, "default", "web")
		if err != nil {
			return nil, err
		}
		other := cur.(*corev1.Pod)
		other.Status = runningStatus("10.0.0.9")
		if _, err := p.c.UpdateStatus(ctx, other); err != nil {
			return nil, err
		}
	}
	return func(bool) {}, nil
}

// TestUpdateStatusNewRetriesWithAFreshObject: a taken status write that
// loses a race is retried from a fresh object build makes, never from the
// one the first attempt's admission changed.
func TestUpdateStatusNewRetriesWithAFreshObject(t *testing.T) {
	r := newTestRegistry(t)
	c, ctx := r.Client(), context.Background()
	out, err := c.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p := &raceAdmitter{c: c}
	r.Use(p)
	var built []*corev1.Pod
	got, err := c.UpdateStatusNew(ctx, func() api.Object {
		b := statusOnly(out.(*corev1.Pod), "", runningStatus("10.0.0.1"))
		built = append(built, b)
		return b
	})
	if err != nil {
		t.Fatal(err)
	}
	// seen: the first attempt, the racing write (copied), the retry
	if len(built) != 2 || len(p.seen) != 3 || p.seen[0] != api.Object(built[0]) || p.seen[2] != api.Object(built[1]) {
		t.Fatalf("got %d pods built and %d admitted, want the first attempt on the first, the retry on a second", len(built), len(p.seen))
	}
	if p.marked[2] {
		t.Fatal("the retry was admitted from an object an earlier admission changed")
	}
	if pod := got.(*corev1.Pod); got != api.Object(built[1]) || pod.Status.PodIP != "10.0.0.1" {
		t.Fatalf("answer %+v, want the second pod built, with its status", pod.Status)
	}
}
