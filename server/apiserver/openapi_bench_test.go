package apiserver

import (
	"testing"

	"github.com/bramble-edge/bramble/server/registry"
)

// BenchmarkOpenAPIBuild measures a document's first request: served from
// the prebuilt ones ("served"), and built (decode the generated schemas,
// pick, encode, gzip) as for a group version whose kinds changed at run
// time ("built"):
//
//	go test -run '^$' -bench OpenAPIBuild -benchmem ./server/apiserver/
func BenchmarkOpenAPIBuild(b *testing.B) {
	kinds := registry.BuiltinKinds()
	for _, gv := range []string{"api/v1", "apis/apps/v1"} {
		b.Run(gv+"/served", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				docs, err := buildOpenAPI(kinds, nil)
				if err != nil {
					b.Fatal(err)
				}
				gz, err := docs.docs[gv].get()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(gz))/1024, "KiB-gzip")
			}
		})
		b.Run(gv+"/built", func(b *testing.B) {
			docs, err := buildOpenAPI(kinds, nil)
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				d := &lazyDoc{hash: docs.docs[gv].hash, build: docs.docs[gv].build}
				gz, err := d.get()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(gz))/1024, "KiB-gzip")
			}
		})
	}
	b.Run("v2-protobuf", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			gz, err := buildOpenAPIV2(kinds, nil).protobuf.get()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(gz))/1024, "KiB-gzip")
		}
	})
}
