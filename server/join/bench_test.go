package join_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"math/big"
	"testing"
)

// BenchmarkCheck measures the revocation check the authenticator (and the
// MQTT broker) run for every node request, with 200 nodes on record (a map
// lookup under a read lock: the count does not matter).
func BenchmarkCheck(b *testing.B) {
	c := newCluster(b)
	ctx := context.Background()
	var cert *x509.Certificate
	for i := range 200 {
		cert = &x509.Certificate{SerialNumber: big.NewInt(int64(i + 1))}
		if err := c.registry.Record(ctx, fmt.Sprintf("node-%d", i), cert); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := c.registry.Check("node-199", cert); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkJoin measures one whole join over TLS against the real server
// and SQLite store: key, CSR, GET /cacerts, POST /v1-bramble/join, token
// check, signing, recording. Hollow agents pay this once per node.
func BenchmarkJoin(b *testing.B) {
	c := newCluster(b)
	token := c.newToken(0)
	b.ResetTimer()
	for i := range b.N {
		mustJoin(b, c, token, fmt.Sprintf("node-%d", i))
	}
}

// BenchmarkRejoin measures a join under a name that already joined: the
// node password is read and compared instead of stored.
func BenchmarkRejoin(b *testing.B) {
	c := newCluster(b)
	token := c.newToken(0)
	mustJoin(b, c, token, "node-0")
	b.ResetTimer()
	for range b.N {
		mustJoin(b, c, token, "node-0")
	}
}
