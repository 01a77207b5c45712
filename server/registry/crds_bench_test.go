package registry

import (
	"context"
	"fmt"
	"testing"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/bench/crdgen"
)

// BenchmarkCRDCreate2MiB decodes and creates a 2 MiB CRD (the size of
// cert-manager's largest) through the registry: validation, naming,
// schema compilation, serving, store write. The delete between creates
// is not timed.
func BenchmarkCRDCreate2MiB(b *testing.B) {
	r := newTestRegistry(b)
	ctx := context.Background()
	body := crdgen.JSON(crdgen.Big("big.bench.dev", 2<<20))
	b.ReportMetric(float64(len(body))/(1<<20), "MiB")
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		obj, _, err := api.DecodeJSON(crdResource, body, true)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Create(ctx, crdResource, "", obj, WriteOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := r.Delete(ctx, crdResource, "", obj.GetName(), nil); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkCustomObjectList10000 lists 10,000 custom objects of one CRD
// in one namespace from the datastore (kinds added at run time have no
// informer), decoding each.
func BenchmarkCustomObjectList10000(b *testing.B) {
	r := newTestRegistry(b)
	ctx := context.Background()
	obj, _, err := api.DecodeJSON(crdResource, crdgen.JSON(crdgen.Small("list.bench.dev")), true)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := r.Create(ctx, crdResource, "", obj, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	res, _ := r.Kinds().Lookup("list.bench.dev", "v1", "things")
	for i := 0; i < 10000; i++ {
		thing, _, err := api.DecodeJSON(res, crdgen.Thing("list.bench.dev", fmt.Sprintf("t%05d", i), i%10), true)
		if err == nil {
			_, err = r.Create(ctx, res, "default", thing, WriteOptions{})
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := r.List(ctx, res, "default", ListOptions{})
		if err != nil || len(l.Items) != 10000 {
			b.Fatalf("list: %v, %d items", err, len(l.Items))
		}
	}
}

// BenchmarkCRDApply2MiB is a server-side apply creating a 2 MiB CRD
// through the registry (what `kubectl apply --server-side` asks of the
// server), field ownership included; the delete between is not timed.
func BenchmarkCRDApply2MiB(b *testing.B) {
	r := newTestRegistry(b)
	ctx := context.Background()
	body := crdgen.JSON(crdgen.Big("big.bench.dev", 2<<20))
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		out, err := r.Apply(ctx, crdResource, "", "things.big.bench.dev", "", body, WriteOptions{FieldManager: "kubectl"})
		if err != nil || !out.Created {
			b.Fatalf("apply: %v", err)
		}
		b.StopTimer()
		if _, err := r.Delete(ctx, crdResource, "", "things.big.bench.dev", nil); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
