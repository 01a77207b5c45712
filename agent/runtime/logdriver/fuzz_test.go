package logdriver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCopy checks that whatever a container prints comes back from the
// CRI lines: every line is well formed, and joining the texts (with a
// newline after each F line) gives the output, newline-terminated.
func FuzzCopy(f *testing.F) {
	f.Add([]byte("hello\nworld\n"))
	f.Add([]byte("no newline"))
	f.Add([]byte("\n\n\r\n"))
	f.Add(bytes.Repeat([]byte("y"), MaxLineBytes+1))
	f.Add(append(bytes.Repeat([]byte("y"), MaxLineBytes), '\n'))
	f.Fuzz(func(t *testing.T, in []byte) {
		path := filepath.Join(t.TempDir(), "0.log")
		w, err := OpenWriter(path, 1<<30, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := Copy(w, "stdout", bytes.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		w.Close()
		out, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		for _, l := range strings.SplitAfter(string(out), "\n") {
			if l == "" {
				continue
			}
			f := strings.SplitN(strings.TrimSuffix(l, "\n"), " ", 4)
			if len(f) != 4 || f[1] != "stdout" || (f[2] != "F" && f[2] != "P") || !strings.HasSuffix(l, "\n") {
				t.Fatalf("malformed line %q", l)
			}
			got.WriteString(f[3])
			if f[2] == "F" {
				got.WriteByte('\n')
			}
		}
		want := in
		if len(in) > 0 && in[len(in)-1] != '\n' {
			want = append(append([]byte{}, in...), '\n')
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("round trip: got %q, want %q", got.Bytes(), want)
		}
	})
}
