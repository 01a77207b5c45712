package publish

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt"
)

// scopeCluster is 1,000 nodes with 30 pods each (30,000 pods) in 100
// namespaces plus a monitoring namespace; each namespace has two policies:
// web pods accept role=frontend pods of the namespace, and every pod accepts
// the monitoring namespace's prometheus pods.
func scopeCluster(b *testing.B) (*policyScope, int64) {
	s := newPolicyScope()
	var rev int64
	put := func(ref mqtt.ObjectRef, obj string) {
		rev++
		ev := &datastore.Event{Type: datastore.EventCreate, Revision: rev,
			KV: &datastore.KeyValue{Key: ref.String(), Value: []byte(obj), ModRevision: rev}}
		if _, err := s.apply(ref, ev); err != nil {
			b.Fatal(err)
		}
	}
	put(namespaceRef("monitoring"), nsJSON("monitoring", map[string]string{"team": "monitoring"}))
	for i := 0; i < 2; i++ {
		put(podRef("monitoring", fmt.Sprintf("prometheus-%d", i)), podJSON("monitoring", fmt.Sprintf("prometheus-%d", i),
			fmt.Sprintf("node-%d", i), fmt.Sprintf("10.42.%d.250", i), map[string]string{"app": "prometheus"}))
	}
	roles := []string{"web", "frontend", "backend", "backend", "backend", "backend", "backend", "backend", "backend", "backend"}
	for n := 0; n < 100; n++ {
		ns := fmt.Sprintf("app-%d", n)
		put(namespaceRef(ns), nsJSON(ns, map[string]string{"team": "apps"}))
		for i := 0; i < 300; i++ {
			node := (n*300 + i) % 1000
			name := fmt.Sprintf("p-%d", i)
			put(podRef(ns, name), podJSON(ns, name, fmt.Sprintf("node-%d", node),
				fmt.Sprintf("10.%d.%d.%d", 42+node/250, node%250, (n*300+i)/1000+2), map[string]string{"role": roles[i%10]}))
		}
	}
	for n := 0; n < 100; n++ {
		ns := fmt.Sprintf("app-%d", n)
		put(policyRef(ns, "web"), fmt.Sprintf(`{"metadata":{"namespace":%q,"name":"web"},"spec":{"podSelector":{"matchLabels":{"role":"web"}},"ingress":[{"from":[{"podSelector":{"matchLabels":{"role":"frontend"}}}]}]}}`, ns))
		put(policyRef(ns, "scrape"), fmt.Sprintf(`{"metadata":{"namespace":%q,"name":"scrape"},"spec":{"podSelector":{},"ingress":[{"from":[{"namespaceSelector":{"matchLabels":{"team":"monitoring"}},"podSelector":{"matchLabels":{"app":"prometheus"}}}]}]}}`, ns))
	}
	return s, rev
}

// BenchmarkPolicyScopePodChange measures what one pod's change costs the
// nodes' policy views, in bytes of desired-stream Changes, for a pod a
// policy picks on a few nodes, a pod picked everywhere, and a pod no policy
// picks. (The pod's own node gets the pod itself as before; not counted.)
func BenchmarkPolicyScopePodChange(b *testing.B) {
	s, rev := scopeCluster(b)
	for _, tc := range []struct{ name, ns, pod, role string }{
		{"frontend-peer", "app-7", "p-1", "frontend"},
		{"prometheus-peer", "monitoring", "prometheus-0", ""},
		{"not-a-peer", "app-7", "p-2", "backend"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var bytes, nodes int
			i := 0
			for b.Loop() {
				i++
				rev++
				lbl := map[string]string{"role": tc.role}
				if tc.role == "" {
					lbl = map[string]string{"app": "prometheus"}
				}
				obj := podJSON(tc.ns, tc.pod, "node-3", fmt.Sprintf("10.42.3.%d", 100+i%2), lbl)
				ev := &datastore.Event{Type: datastore.EventUpdate, Revision: rev,
					KV: &datastore.KeyValue{Key: tc.pod, Value: []byte(obj), ModRevision: rev}}
				out, err := s.apply(podRef(tc.ns, tc.pod), ev)
				if err != nil {
					b.Fatal(err)
				}
				bytes, nodes = changeBytes(b, out)
			}
			b.ReportMetric(float64(bytes), "bytes-all-nodes")
			b.ReportMetric(float64(nodes), "nodes")
			if nodes > 0 {
				b.ReportMetric(float64(bytes)/float64(nodes), "bytes/node")
			}
		})
	}
}

// changeBytes is the size of the Changes a fanout would put on the nodes'
// desired topics, encoded as the publisher encodes them.
func changeBytes(b *testing.B, out *fanout) (bytes, nodes int) {
	enc := encoder{}
	for _, node := range out.order {
		for _, c := range out.of(node) {
			mc, err := enc.change(c)
			if err != nil {
				b.Fatal(err)
			}
			data, err := json.Marshal(mc)
			if err != nil {
				b.Fatal(err)
			}
			bytes += len(data)
		}
	}
	return bytes, len(out.order)
}

// BenchmarkPolicyScopeMemory reports the heap the scope of scopeCluster
// (30,000 pods, 200 policies, 1,000 nodes) holds, and how long building it
// from nothing takes.
func BenchmarkPolicyScopeMemory(b *testing.B) {
	var s *policyScope
	var held uint64
	for b.Loop() {
		before := heapInUse()
		s, _ = scopeCluster(b)
		held = heapInUse() - before
	}
	b.ReportMetric(float64(held)/(1<<20), "MiB-held")
	b.ReportMetric(float64(held)/float64(len(s.pods)), "B/pod")
	runtime.KeepAlive(s)
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
