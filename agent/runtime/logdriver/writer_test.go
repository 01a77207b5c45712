package logdriver

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func fixedWriter(t testing.TB, maxBytes int64, maxFiles int) (*Writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "logs", "0.log")
	w, err := OpenWriter(path, maxBytes, maxFiles)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	w.now = func() time.Time { return time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("x", 3600)) }
	return w, path
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteLineFormat(t *testing.T) {
	w, path := fixedWriter(t, 1<<20, 3)
	if err := w.WriteLine("stdout", false, []byte("hello world")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLine("stderr", true, []byte("part")); err != nil {
		t.Fatal(err)
	}
	want := "2024-05-06T06:08:09.123456789Z stdout F hello world\n2024-05-06T06:08:09.123456789Z stderr P part\n"
	if got := readFile(t, path); got != want {
		t.Errorf("log: got %q, want %q", got, want)
	}
}

func TestCopySplitsLongLinesAndKeepsTheLastPartial(t *testing.T) {
	w, path := fixedWriter(t, 1<<20, 1)
	long := strings.Repeat("x", 2*MaxLineBytes+100)
	if err := Copy(w, "stdout", strings.NewReader("short\n"+long+"\ntail")); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(readFile(t, path), "\n"), "\n") {
		f := strings.SplitN(l, " ", 4)
		got = append(got, f[2]+":"+runs(f[3]))
	}
	want := []string{"F:short", "P:x*16384", "P:x*16384", "F:x*100", "F:tail"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("lines: got %v, want %v", got, want)
	}
}

// runs shows a run of x's by its length.
func runs(s string) string {
	if s != "" && strings.Trim(s, "x") == "" {
		return "x*" + strconv.Itoa(len(s))
	}
	return s
}

func TestRotationKeepsMaxFiles(t *testing.T) {
	w, path := fixedWriter(t, 200, 3)
	line := []byte(strings.Repeat("a", 40)) // 40 + 51 bytes of framing = 91 per line
	for i := 0; i < 7; i++ {
		if err := w.WriteLine("stdout", false, line); err != nil {
			t.Fatal(err)
		}
	}
	// 2 lines per file: 7 lines make path.3 (gone), path.2, path.1, path.
	for p, want := range map[string]int{path + ".2": 2, path + ".1": 2, path: 1} {
		if got := strings.Count(readFile(t, p), "\n"); got != want {
			t.Errorf("%s: got %d lines, want %d", p, got, want)
		}
	}
	if _, err := os.Stat(path + ".3"); !os.IsNotExist(err) {
		t.Errorf("%s.3: got %v, want it absent", path, err)
	}
}

func TestRotationWithOneFileTruncates(t *testing.T) {
	w, path := fixedWriter(t, 100, 1)
	for _, s := range []string{"first-line-of-the-log", "second-line-of-the-log"} {
		if err := w.WriteLine("stdout", false, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, path); strings.Contains(got, "first") || !strings.Contains(got, "second") {
		t.Errorf("log: got %q, want only the second line", got)
	}
	if _, err := os.Stat(path + ".1"); !os.IsNotExist(err) {
		t.Errorf("%s.1: got %v, want it absent", path, err)
	}
}

func TestOpenWriterAppendsAndCountsExistingBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "0.log")
	if err := os.WriteFile(path, []byte(strings.Repeat("z", 150)+"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	w, err := OpenWriter(path, 180, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WriteLine("stdout", false, []byte("next")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path+".1"); len(got) != 151 {
		t.Errorf("%s.1: got %d bytes, want the 151 written before the driver started", path, len(got))
	}
}

func TestDecodeConfig(t *testing.T) {
	good := Config{Path: "/var/log/pods/x/0.log", MaxBytes: 1 << 20, MaxFiles: 3}
	got, err := DecodeConfig(good.Encode())
	if err != nil || got != good {
		t.Errorf("round trip: got %+v, %v; want %+v", got, err, good)
	}
	for arg, want := range map[string]string{
		`{"path":"rel.log","maxBytes":1,"maxFiles":1}`: "path",
		`{"path":"/a.log","maxBytes":0,"maxFiles":1}`:  "maxBytes",
		`{"path":"/a.log","maxBytes":1,"maxFiles":0}`:  "maxFiles",
		`not json`: "log driver config",
	} {
		if _, err := DecodeConfig(arg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("DecodeConfig(%s): got %v, want an error naming %s", arg, err, want)
		}
	}
}
