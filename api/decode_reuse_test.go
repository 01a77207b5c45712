package api

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const reusePod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-7d9f8-abcde","generateName":"web-7d9f8-",
"namespace":"default","uid":"5f0c1e2a-4e12-4b7e-9a55-0e5c2b7d9e11","creationTimestamp":"2026-11-27T12:00:00Z",
"labels":{"app":"web","pod-template-hash":"7d9f8"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet",
"name":"web-7d9f8","uid":"0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0","controller":true,"blockOwnerDeletion":true}]},
"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}],
"resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"500m","memory":"128Mi"}},
"env":[{"name":"MODE","value":"prod"}]}]},"status":{"phase":"Pending"}}`

// podRevisions is one pod's stored values as it is created, bound and
// reported running.
func podRevisions(t testing.TB) [][]byte {
	t.Helper()
	r := res(t, "Pod")
	obj, _, err := DecodeJSON(r, []byte(reusePod), true)
	if err != nil {
		t.Fatal(err)
	}
	pod := obj.(*corev1.Pod)
	Default(pod)
	var out [][]byte
	add := func() {
		data, err := Encode(pod)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	add()
	pod.Spec.NodeName = "hollow-17"
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
	add()
	pod.Status.Phase, pod.Status.PodIP = corev1.PodRunning, "10.42.3.7"
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", Ready: true, Image: "nginx:1.27",
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Unix(1795000000, 0)}}}}
	add()
	pod.Labels["extra"] = "x"
	add()
	return out
}

func TestDecodeStoredReusingEqualsAWholeDecode(t *testing.T) {
	r := res(t, "Pod")
	var prev Object
	var secs *Sections
	before := ReusedSections()
	for i, data := range podRevisions(t) {
		want, err := DecodeStored(r, data, int64(10+i))
		if err != nil {
			t.Fatal(err)
		}
		got, next, err := DecodeStoredReusing(r, data, int64(10+i), prev, secs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("revision %d: got %+v, want %+v", i, got, want)
		}
		prev, secs = got, next
	}
	// bound: metadata; running: metadata and spec; relabelled: spec and status.
	if got := ReusedSections() - before; got != 5 {
		t.Fatalf("got %d sections reused, want 5", got)
	}
}

func TestDecodeStoredReusingNeverSharesWithAnotherKind(t *testing.T) {
	revs := podRevisions(t)
	pod, secs, err := DecodeStoredReusing(res(t, "Pod"), revs[0], 1, nil, nil)
	if err != nil || secs == nil {
		t.Fatalf("got %v, %v; want fingerprints", secs, err)
	}
	node := strings.Replace(string(revs[0]), `"kind":"Pod"`, `"kind":"Node"`, 1)
	before := ReusedSections()
	if _, _, err := DecodeStoredReusing(res(t, "Node"), []byte(node), 2, pod, secs); err != nil {
		t.Fatal(err)
	}
	if got := ReusedSections() - before; got != 0 {
		t.Fatalf("got %d sections of a Pod reused in a Node, want 0", got)
	}
}

func TestTopLevelSpans(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		spec string
	}{
		{`{"spec":{"a":"}"},"status":1}`, true, `{"a":"}"}`},
		{` { "metadata" : [1,{"x":"\""}] , "spec" : null } `, true, `null`},
		{`{"spec":1,"spec":2}`, false, ``},
		{`{"sp\u0065c":1}`, false, ``},
		{`{"spec":{"a":1]}`, false, ``},
		{`{"spec":"abc`, false, ``},
		{`{"spec":1}x`, false, ``},
		{`{}`, true, ``},
		{`[]`, false, ``},
	} {
		spans, ok := topLevelSpans([]byte(tc.in))
		got := tc.in[spans[1][0]:spans[1][1]]
		if ok != tc.ok || (ok && got != tc.spec) {
			t.Errorf("%s: got %q, %v; want %q, %v", tc.in, got, ok, tc.spec, tc.ok)
		}
	}
}

// FuzzDecodeStoredReusing: decoding b after a (sharing what is unchanged)
// gives what decoding b alone gives, or fails where that fails.
func FuzzDecodeStoredReusing(f *testing.F) {
	revs := podRevisions(f)
	for i := 1; i < len(revs); i++ {
		f.Add(revs[i-1], revs[i])
	}
	f.Add(revs[0], []byte(`{"kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"resources":{"limits":{"cpu":"1e999999"}}}]}}`))
	r := res(f, "Pod")
	f.Fuzz(func(t *testing.T, a, b []byte) {
		prev, secs, err := DecodeStoredReusing(r, a, 1, nil, nil)
		if err != nil {
			return
		}
		want, werr := DecodeStored(r, b, 2)
		got, _, gerr := DecodeStoredReusing(r, b, 2, prev, secs)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("alone: %v; after a: %v", werr, gerr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	})
}

func BenchmarkDecodeStoredPodRevisions(b *testing.B) {
	r, revs := res(b, "Pod"), podRevisions(b)
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, data := range revs {
				if _, err := DecodeStored(r, data, int64(i+1)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("reusing", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var prev Object
			var secs *Sections
			for i, data := range revs {
				obj, next, err := DecodeStoredReusing(r, data, int64(i+1), prev, secs)
				if err != nil {
					b.Fatal(err)
				}
				prev, secs = obj, next
			}
		}
	})
}
