package servicealloc

import (
	"context"
	"fmt"
	"testing"

	"github.com/bramble-edge/bramble/server/registry"
)

// BenchmarkCreateService measures a Service create through the registry
// on SQLite, with ClusterIP and NodePort allocation, in a /16 that fills
// up as the benchmark runs; plain is the same create with the address
// and port given by hand and no allocator, for comparison.
func BenchmarkCreateService(b *testing.B) {
	b.Run("allocated", func(b *testing.B) {
		e := newEnv(b, Config{})
		i := 0
		for b.Loop() {
			e.mustCreate(b, svc(fmt.Sprintf("s%d", i), "NodePort", "", 80, 0))
			i++
		}
	})
	b.Run("plain", func(b *testing.B) {
		e := newEnv(b, Config{})
		e.reg = withoutAdmission(b, e)
		i := 0
		for b.Loop() {
			ip := fmt.Sprintf("10.43.%d.%d", 1+i/250, 1+i%250)
			e.mustCreate(b, svc(fmt.Sprintf("s%d", i), "NodePort", ip, 80, int32(30000+i%2700)))
			i++
		}
	})
}

// BenchmarkAllocateClusterIP is one ClusterIP taken and given back, with
// n Services already holding addresses: the in-memory cost of the pool.
func BenchmarkAllocateClusterIP(b *testing.B) {
	for _, n := range []int{100, 10000, 60000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			a, err := New(nil, Config{})
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < n; i++ {
				a.ips.next(holder{uid: "fill"})
			}
			ctx := context.Background()
			s := svc("x", "", "", 80, 0)
			for b.Loop() {
				t := &txn{a: a, svc: s, h: holder{uid: "x"}}
				if _, err := t.next(ctx, a.ips); err != nil {
					b.Fatal(err)
				}
				t.undo()
			}
		})
	}
}

// withoutAdmission is a second registry over e's store with no plugins.
func withoutAdmission(b *testing.B, e *env) *registry.Registry {
	b.Helper()
	reg, err := registry.New(context.Background(), registry.Config{Store: e.store})
	if err != nil {
		b.Fatal(err)
	}
	return reg
}
