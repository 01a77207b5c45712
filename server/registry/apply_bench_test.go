package registry

import "testing"

// BenchmarkBuiltinTypeConverter measures building the typed merge of every
// built-in kind, which the first server-side apply after a start pays:
//
//	go test -run '^$' -bench BuiltinTypeConverter -benchmem ./server/registry/
func BenchmarkBuiltinTypeConverter(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, _, err := builtinTypeConverter(); err != nil {
			b.Fatal(err)
		}
	}
}
