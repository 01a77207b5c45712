package logdriver

import (
	"bytes"
	"path/filepath"
	"testing"
)

// BenchmarkCopy measures turning 80-byte output lines into CRI lines in a
// rotating file.
func BenchmarkCopy(b *testing.B) {
	w, err := OpenWriter(filepath.Join(b.TempDir(), "0.log"), 10<<20, 3)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	chunk := bytes.Repeat(append(bytes.Repeat([]byte("x"), 79), '\n'), 1000)
	b.SetBytes(int64(len(chunk)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Copy(w, "stdout", bytes.NewReader(chunk)); err != nil {
			b.Fatal(err)
		}
	}
}
