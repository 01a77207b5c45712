package replicaset

import (
	"fmt"
	"testing"
)

// BenchmarkScaleUp measures a ReplicaSet going from 0 to 100 pods through
// the real admission path and SQLite store: slow-start batches, each
// waiting for the cache to observe the one before.
func BenchmarkScaleUp(b *testing.B) {
	h := start(b, nil)
	for i := range b.N {
		rs := h.createRS(fmt.Sprintf("web-%d", i), 100, 0)
		h.waitOwned(rs, 100)
	}
}
