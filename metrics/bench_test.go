package metrics

import "testing"

// BenchmarkObserveRequest is what every API request adds: the counter and
// histogram lookups by label and their atomic adds.
func BenchmarkObserveRequest(b *testing.B) {
	r := &Request{Verb: "create", Version: "v1", Resource: "configmaps", Scope: "namespace"}
	b.ReportAllocs()
	for b.Loop() {
		ObserveRequest(r, 201, 0.002, false)
	}
}
