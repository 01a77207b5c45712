package informer

import (
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
)

var podsResource = api.MustLookup("", "v1", "pods")

// indexPods is a set of pods that differ in every standard index's
// input: namespace, node, owners (none, one, two, a controller or not).
func indexPods() []*corev1.Pod {
	ctl := true
	owners := [][]metav1.OwnerReference{
		nil,
		{},
		{{UID: "u1"}},
		{{UID: "u1", Controller: &ctl}},
		{{UID: "u2", Controller: &ctl}},
		{{UID: "u1"}, {UID: "u2"}},
		{{UID: "u2"}, {UID: "u1", Controller: &ctl}},
	}
	var pods []*corev1.Pod
	for _, ns := range []string{"", "default", "other"} {
		for _, node := range []string{"", "n1", "n2"} {
			for _, refs := range owners {
				pods = append(pods, &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p", OwnerReferences: refs},
					Spec:       corev1.PodSpec{NodeName: node}})
			}
		}
	}
	return pods
}

// TestStandardIndexesSameAgreesWithTheirFunctions: for every pair of
// pods, each standard index's allocation-free check says a pod is held
// under the other's values exactly when its function gives those values.
func TestStandardIndexesSameAgreesWithTheirFunctions(t *testing.T) {
	st := newState(podsResource, &sync.RWMutex{}, false)
	pods := indexPods()
	for _, ix := range st.indexers {
		if ix.same == nil {
			t.Fatalf("index %s: no check of its own", ix.name)
		}
		for _, a := range pods {
			for _, b := range pods {
				vals := ix.fn(b)
				if got, want := ix.same(a, vals), slices.Equal(vals, ix.fn(a)); got != want {
					t.Errorf("index %s: same(%+v, %q) = %v, want %v", ix.name, a.ObjectMeta, vals, got, want)
				}
			}
			if got, want := ix.same(a, nil), len(ix.fn(a)) == 0; got != want {
				t.Errorf("index %s: same(%+v, nil) = %v, want %v", ix.name, a.ObjectMeta, got, want)
			}
		}
	}
}

// TestReindexKeepingValuesAllocatesNothing: an update that keeps a pod's
// index values (a status write) allocates nothing in the indexes.
func TestReindexKeepingValuesAllocatesNothing(t *testing.T) {
	st := newState(podsResource, &sync.RWMutex{}, false)
	ctl := true
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p",
		OwnerReferences: []metav1.OwnerReference{{UID: types.UID("u1"), Controller: &ctl}}},
		Spec: corev1.PodSpec{NodeName: "n1"}}
	st.upsert("default/p", pod, nil)
	next := pod.DeepCopy()
	next.Status.Phase = corev1.PodRunning
	if n := testing.AllocsPerRun(100, func() {
		e := st.objs["default/p"]
		e.obj = next
		st.reindex("default/p", e)
	}); n != 0 {
		t.Errorf("reindex of an unchanged pod: %v allocations, want 0", n)
	}
	moved := next.DeepCopy()
	moved.Spec.NodeName = "n2"
	st.upsert("default/p", moved, nil)
	if got := len(st.indexes[IndexNode]["n1"]); got != 0 {
		t.Errorf("node n1 holds %d pods after the move, want 0", got)
	}
	if got := len(st.indexes[IndexNode]["n2"]); got != 1 {
		t.Errorf("node n2 holds %d pods after the move, want 1", got)
	}
}

// TestAddIndexReplacesAStandardOne: an index added under a standard
// index's name replaces it, its function deciding updates too.
func TestAddIndexReplacesAStandardOne(t *testing.T) {
	st := newState(podsResource, &sync.RWMutex{}, false)
	st.addIndex(IndexNode, func(o api.Object) []string { return []string{"x-" + o.(*corev1.Pod).Spec.NodeName} })
	if got := len(st.indexers); got != 4 {
		t.Fatalf("%d indexes after replacing one, want 4", got)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p"}, Spec: corev1.PodSpec{NodeName: "n1"}}
	st.upsert("default/p", pod, nil)
	moved := pod.DeepCopy()
	moved.Spec.NodeName = "n2"
	st.upsert("default/p", moved, nil)
	if len(st.indexes[IndexNode]["x-n1"]) != 0 || len(st.indexes[IndexNode]["x-n2"]) != 1 || len(st.indexes[IndexNode]["n2"]) != 0 {
		t.Errorf("node index after the move: %v, want only x-n2", st.indexes[IndexNode])
	}
}

// TestGetBuildsNoKey: Get of a held pod allocates nothing, a key longer
// than the buffer it is built in is found too, and a pending value is
// decoded.
func TestGetBuildsNoKey(t *testing.T) {
	st := newState(podsResource, &sync.RWMutex{}, false)
	inf := &Informer{st: st}
	long := strings.Repeat("n", 200)
	for _, name := range []string{"p", long} {
		st.upsert("default/"+name, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}, nil)
		if obj, ok := inf.Get("default", name); !ok || obj.GetName() != name {
			t.Errorf("Get(default, %.10s...): %v, %v", name, obj, ok)
		}
	}
	if _, ok := inf.Get("other", "p"); ok {
		t.Error("Get(other, p) found a pod of another namespace")
	}
	if n := testing.AllocsPerRun(100, func() { inf.Get("default", "p") }); n != 0 {
		t.Errorf("Get: %v allocations, want 0", n)
	}
	data := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"q","namespace":"default"}}`)
	st.stash("default/q", &cell{res: podsResource, key: "/registry/pods/default/q", data: data, rev: 7})
	if obj, ok := inf.Get("default", "q"); !ok || obj.GetName() != "q" {
		t.Errorf("Get of a pending pod: %v, %v", obj, ok)
	}
}

// TestServesAllocatesNothing: Serves, asked on every registry read and
// write, builds no key and no handle; a resource whose informer was
// replaced by another's (a CRD defined again) is served by the new one.
func TestServesAllocatesNothing(t *testing.T) {
	c := New(nil, Config{})
	inf := c.Informer(podsResource)
	inf.st.markSynced()
	if got, ok := c.Serves(podsResource); !ok || got.st != inf.st {
		t.Fatalf("Serves(pods): %v, %v; want the pods informer", got, ok)
	}
	if n := testing.AllocsPerRun(100, func() { c.Serves(podsResource) }); n != 0 {
		t.Errorf("Serves: %v allocations, want 0", n)
	}
	again := *podsResource // another resource of the same path
	next := c.Informer(&again)
	next.st.markSynced()
	if _, ok := c.Serves(podsResource); ok {
		t.Error("Serves of the replaced resource: still served")
	}
	if got, ok := c.Serves(&again); !ok || got.st != next.st {
		t.Errorf("Serves of the new resource: %v, %v; want its informer", got, ok)
	}
}

// TestReadsSeeAnUpdateInPlace: after an update that keeps the index values
// (the entry changed in place), Get, List and ByIndex give the new object;
// readers running beside updates see one version or the other (-race).
func TestReadsSeeAnUpdateInPlace(t *testing.T) {
	st := newState(podsResource, &sync.RWMutex{}, false)
	inf := &Informer{st: st}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p"}, Spec: corev1.PodSpec{NodeName: "n1"}}
	st.upsert("default/p", pod, nil)
	next := pod.DeepCopy()
	next.Status.Phase = corev1.PodRunning
	if old, had := st.upsert("default/p", next, nil); !had || old != api.Object(pod) {
		t.Fatalf("upsert: replaced %v, %v; want the first pod", old, had)
	}
	if got, _ := inf.Get("default", "p"); got != api.Object(next) {
		t.Errorf("Get: got %p, want the update %p", got, next)
	}
	for _, got := range [][]api.Object{inf.List("default", nil), inf.List("", nil), inf.ByIndex(IndexNode, "n1"), inf.ByIndex(IndexOrphan, "default")} {
		if len(got) != 1 || got[0] != api.Object(next) {
			t.Errorf("read: got %v, want only the update", got)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			if obj, ok := inf.Get("default", "p"); !ok || obj.GetName() != "p" {
				t.Error("Get during updates: no pod p")
				return
			}
			_ = inf.ByIndex(IndexNode, "n1")
		}
	}()
	for range 200 {
		st.upsert("default/p", pod.DeepCopy(), nil)
	}
	<-done
	if _, had := st.remove("default/p"); !had {
		t.Fatal("remove: p was not held")
	}
	if got := inf.ByIndex(IndexNode, "n1"); len(got) != 0 {
		t.Errorf("ByIndex after the removal: %v, want none", got)
	}
}
