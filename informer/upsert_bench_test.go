package informer

import (
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/api"
)

// ownedPods is n pods of one ReplicaSet, bound to one of 100 nodes.
func ownedPods(n int) []*corev1.Pod {
	ctl := true
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("fleet-5d8f7c9b6d-%05d", i),
			Labels:          map[string]string{"app": "fleet"},
			OwnerReferences: []metav1.OwnerReference{{UID: types.UID("6f1c2f2e-rs"), Controller: &ctl}}},
			Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%03d", i%100)}}
	}
	return pods
}

// BenchmarkUpsertStatusChange is the cache's own work per status write of
// a pod (its index values unchanged), with one handler that does nothing.
//
//	go test -run '^$' -bench UpsertStatusChange ./informer/
func BenchmarkUpsertStatusChange(b *testing.B) {
	st := newState(podsResource, &sync.RWMutex{}, false)
	st.handlers = []*Handler{{OnUpdate: func(_, _ api.Object) {}}}
	pods := ownedPods(1000)
	keys := make([]string, len(pods))
	for i, p := range pods {
		keys[i] = p.Namespace + "/" + p.Name
		st.upsert(keys[i], p, nil)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		j := i % len(pods)
		st.upsert(keys[j], pods[j], nil)
	}
}

// BenchmarkByIndexOwner1000 reads the 1,000 pods of one owner by index,
// as the ReplicaSet controller does each sync.
func BenchmarkByIndexOwner1000(b *testing.B) {
	st := newState(podsResource, &sync.RWMutex{}, false)
	inf := &Informer{st: st}
	for _, p := range ownedPods(1000) {
		st.upsert(p.Namespace+"/"+p.Name, p, nil)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if len(inf.ByIndex(IndexOwner, "6f1c2f2e-rs")) != 1000 {
			b.Fatal("not 1000")
		}
	}
}
