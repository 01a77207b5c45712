package controllers_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

var podsRes = controllertest.Resource("", "pods")

func newPod(name, node string, owner metav1.Object) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if owner != nil {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.GetName(), UID: owner.GetUID()}}
	}
	return p
}

// recorded collects what a handler saw, in order.
type recorded struct {
	mu  sync.Mutex
	log []string
}

func (r *recorded) add(s string) { r.mu.Lock(); r.log = append(r.log, s); r.mu.Unlock() }
func (r *recorded) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

func TestCacheListsThenFollowsTheWatch(t *testing.T) {
	e := controllertest.New(t)
	owner, err := e.Client.Create(e.Ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner", Namespace: "default"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Client.Create(e.Ctx, newPod("before", "pi-1", owner)); err != nil {
		t.Fatal(err)
	}
	pods := e.Cache.Informer(podsRes)
	var seen recorded
	pods.AddHandler(controllers.Handler{
		OnAdd:    func(o api.Object) { seen.add("add " + o.GetName()) },
		OnUpdate: func(_, o api.Object) { seen.add("update " + o.GetName()) },
		OnDelete: func(o api.Object) { seen.add("delete " + o.GetName()) },
	})
	e.Start()
	if !pods.HasSynced() {
		t.Fatal("HasSynced after WaitForSync: got false")
	}
	if got := len(pods.ByIndex(controllers.IndexNode, "pi-1")); got != 1 {
		t.Fatalf("pods on pi-1 after the list: got %d, want 1", got)
	}
	if got := len(pods.ByIndex(controllers.IndexOwner, string(owner.GetUID()))); got != 1 {
		t.Fatalf("pods owned by the ConfigMap: got %d, want 1", got)
	}
	after, err := e.Client.Create(e.Ctx, newPod("after", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	moved := after.DeepCopyObject().(*corev1.Pod)
	moved.Labels["app"] = "db"
	if _, err := e.Client.Update(e.Ctx, moved); err != nil {
		t.Fatal(err)
	}
	zero := int64(0) // "before" is bound to a node: only a force delete removes it at once
	if err := e.Client.Delete(e.Ctx, podsRes, "default", "before", controllers.DeleteOptions{GracePeriod: &zero}); err != nil {
		t.Fatal(err)
	}
	want := []string{"add before", "add after", "update after", "delete before"}
	e.Eventually(10*time.Second, func() error {
		if got := seen.get(); fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Errorf("handler saw %v, want %v", got, want)
		}
		return nil
	})
	if got := pods.List("default", labels.SelectorFromSet(labels.Set{"app": "db"})); len(got) != 1 || got[0].GetName() != "after" {
		t.Fatalf("List app=db: got %d objects, want the pod after", len(got))
	}
	if got := len(pods.ByIndex(controllers.IndexNode, "pi-1")); got != 0 {
		t.Fatalf("pods on pi-1 after its pod was deleted: got %d, want 0", got)
	}
	if obj, ok := pods.Get("default", "after"); !ok || obj.GetResourceVersion() == "" {
		t.Fatalf("Get default/after: got %v, %v; want the pod with a resourceVersion", obj, ok)
	}
}

func TestRecorderAggregatesRepeats(t *testing.T) {
	e := controllertest.New(t)
	cm, err := e.Client.Create(e.Ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "subject", Namespace: "default"}})
	if err != nil {
		t.Fatal(err)
	}
	events := e.Cache.Informer(controllertest.Resource("", "events"))
	e.Start()
	rec := controllers.NewRecorder(e.Client, "test-controller", e.Log)
	rec.Start(e.Ctx)
	for range 3 {
		rec.Eventf(cm, corev1.EventTypeNormal, "Poked", "poked %s", cm.GetName())
	}
	rec.Eventf(cm, corev1.EventTypeWarning, "Broke", "something else")
	e.Eventually(10*time.Second, func() error {
		evs := events.List("default", nil)
		counts := map[string]int32{}
		for _, o := range evs {
			ev := o.(*corev1.Event)
			if ev.InvolvedObject.UID != cm.GetUID() || ev.InvolvedObject.Kind != "ConfigMap" || ev.Source.Component != "test-controller" {
				return fmt.Errorf("event %s is about %+v from %q", ev.Name, ev.InvolvedObject, ev.Source.Component)
			}
			counts[ev.Reason+":"+ev.Message] = ev.Count
		}
		if len(evs) != 2 || counts["Poked:poked subject"] != 3 || counts["Broke:something else"] != 1 {
			return fmt.Errorf("got %d events with counts %v, want 2: Poked x3 and Broke x1", len(evs), counts)
		}
		return nil
	})
}
