package informer_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
)

// followedPods starts e's cache with a pods informer a handler follows
// (a quiet informer takes no offers).
func followedPods(e *env) *informer.Informer {
	pods := e.cache.Informer(podsRes)
	pods.AddHandler(informer.Handler{OnAdd: func(api.Object) {}})
	e.start()
	return pods
}

// handPod is a pod as the registry has it just before writing it, and
// the bytes it writes.
func handPod(t *testing.T, name string) (*corev1.Pod, []byte) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: "u-1",
		CreationTimestamp: metav1.Now(), Labels: map[string]string{}},
		Spec: corev1.PodSpec{NodeName: "pi-1", Containers: []corev1.Container{{Name: "c", Image: "busybox",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("0.5")}}}}}}
	data, err := api.Encode(pod)
	if err != nil {
		t.Fatal(err)
	}
	return pod, data
}

// TestHandoffTakesTheOfferedObject: a write offered before it is made
// reaches the informer without a decode, as a copy equal to the decode of
// the stored bytes, which the writer's later changes do not reach.
func TestHandoffTakesTheOfferedObject(t *testing.T) {
	e := newEnv(t)
	pods := followedPods(e)
	pod, data := handPod(t, "p")
	decodes := api.Decodes()
	offered := e.cache.Offer(podsRes, podsRes.Key("default", "p"), data, pod)
	if offered == nil {
		t.Fatal("Offer declined a pod")
	}
	rev, err := e.store.Create(e.ctx, podsRes.Key("default", "p"), data)
	offered.Written(rev, err)
	if err != nil {
		t.Fatal(err)
	}
	pod.Labels["changed"] = "by-the-writer"
	var got api.Object
	eventually(t, func() error {
		var ok bool
		if got, ok = pods.Get("default", "p"); !ok {
			return errors.New("pod not in the cache")
		}
		return nil
	})
	if d := api.Decodes() - decodes; d != 0 {
		t.Fatalf("decodes: got %d, want 0", d)
	}
	want, err := api.DecodeStored(podsRes, data, rev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the cache's pod differs from the decode:\n got %+v\nwant %+v", got, want)
	}
	if st := e.cache.Handoffs(); st.Taken != 1 || st.Held != 0 {
		t.Fatalf("hand-offs: got %+v, want 1 taken, none held", st)
	}
}

// TestHandoffDecodesWhatWasNotOffered: an offer whose write failed, or
// whose key another writer wrote with other bytes, is dropped and the
// change decoded; a quiet informer gets no offer.
func TestHandoffDecodesWhatWasNotOffered(t *testing.T) {
	e := newEnv(t)
	e.cache.Informer(cmsRes) // quiet
	pods := followedPods(e)
	pod, data := handPod(t, "p")
	key := podsRes.Key("default", "p")
	e.cache.Offer(podsRes, key, data, pod).Written(0, errors.New("conflict"))
	other, _ := handPod(t, "p")
	other.Labels["writer"] = "another"
	otherData, _ := api.Encode(other)
	offered := e.cache.Offer(podsRes, key, data, pod)
	rev, err := e.store.Create(e.ctx, key, otherData)
	if err != nil {
		t.Fatal(err)
	}
	offered.Written(rev, nil) // as if it had been this write's
	eventually(t, func() error {
		if got, ok := pods.Get("default", "p"); !ok || got.GetLabels()["writer"] != "another" {
			return fmt.Errorf("pod in the cache: got %v, want the other writer's", got)
		}
		return nil
	})
	// The second offer goes when its write's event passes it, or when its
	// writer reports a revision the cache has applied (or, should the two
	// cross, at the next sweep).
	if st := e.cache.Handoffs(); st.Taken != 0 || st.Dropped < 1 || st.Held > 1 {
		t.Fatalf("hand-offs: got %+v, want none taken, the failed write's dropped", st)
	}
	if o := e.cache.Offer(cmsRes, cmsRes.Key("default", "c"), []byte(`{}`), &corev1.ConfigMap{}); o != nil {
		t.Fatal("a quiet informer took an offer")
	}
}

// TestHandoffIsBounded: offers whose writes never come are held no more
// than the bound.
func TestHandoffIsBounded(t *testing.T) {
	e := newEnv(t)
	followedPods(e)
	for i := range 1500 {
		pod, data := handPod(t, fmt.Sprintf("p-%d", i))
		e.cache.Offer(podsRes, podsRes.Key("default", pod.Name), data, pod)
	}
	if st := e.cache.Handoffs(); st.Peak > 1024 || st.Held > 1024 || st.Dropped < 1500-1024 {
		t.Fatalf("hand-offs: got %+v, want at most 1024 held and the rest dropped", st)
	}
}
