package logs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseCRI(t *testing.T) {
	l, ok := parseCRI([]byte("2026-01-02T03:04:05.123456789Z stderr P hello world"))
	if !ok || l.stream != "stderr" || !l.partial || string(l.text) != "hello world" || l.ts.Nanosecond() != 123456789 {
		t.Fatalf("got %+v ok=%v, want stderr partial \"hello world\"", l, ok)
	}
	if l, ok := parseCRI([]byte("2026-01-02T03:04:05Z stdout F ")); !ok || len(l.text) != 0 || l.partial {
		t.Fatalf("empty line: got %+v ok=%v, want a full empty line", l, ok)
	}
	for _, bad := range []string{"", "no time here", "2026-01-02T03:04:05Z stdout", "2026-01-02T03:04:05Z stdout X hi", "2026-01-02T03:04:05Z stdout Fhi"} {
		if _, ok := parseCRI([]byte(bad)); ok {
			t.Errorf("parseCRI(%q): got ok, want not CRI", bad)
		}
	}
}

func TestJoinerJoinsPartialsPerStream(t *testing.T) {
	var j joiner
	var got []string
	for _, line := range []string{
		"2026-01-02T03:04:05Z stdout P hel",
		"2026-01-02T03:04:06Z stderr F oops",
		"2026-01-02T03:04:07Z stdout P lo ",
		"2026-01-02T03:04:08Z stdout F world",
		"not a cri line",
	} {
		if e, ok := j.add([]byte(line)); ok {
			got = append(got, string(e.format(nil, true)))
		}
	}
	want := []string{"2026-01-02T03:04:06Z oops\n", "2026-01-02T03:04:05Z hello world\n", "not a cri line\n"}
	if strings.Join(got, "") != strings.Join(want, "") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// writeLog writes CRI lines (already formatted, without newline) to path.
func writeLog(t testing.TB, path string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// cri formats a CRI line at time at.
func cri(at time.Time, text string) string {
	return at.UTC().Format(time.RFC3339Nano) + " stdout F " + text
}

// copyFiles runs a copier over path (and its rotated files) with f.
func copyFiles(t testing.TB, path string, f filter) string {
	t.Helper()
	var out strings.Builder
	c := newCopier(f, func(b []byte) error { out.Write(b); return nil })
	live, err := openLines(path)
	if err != nil {
		t.Fatal(err)
	}
	defer live.close()
	if err := c.readHistory(t.Context(), path, live); err != nil && !errors.Is(err, errLimit) {
		t.Fatalf("readHistory: %v", err)
	}
	return out.String()
}

func TestCopierTailSinceLimitAcrossRotatedFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "0.log")
	now := time.Now()
	writeLog(t, path+".2", cri(now.Add(-3*time.Hour), "one"), cri(now.Add(-2*time.Hour), "two"))
	writeLog(t, path+".1", cri(now.Add(-30*time.Minute), "three"))
	writeLog(t, path, cri(now.Add(-time.Minute), "four"), cri(now, "five"))
	writeLog(t, path+".x", cri(now, "not a rotated file"))
	for _, tc := range []struct {
		name string
		f    filter
		want string
	}{
		{"all", filter{tail: -1}, "one\ntwo\nthree\nfour\nfive\n"},
		{"tail 2", filter{tail: 2}, "four\nfive\n"},
		{"tail 0", filter{tail: 0}, ""},
		{"tail 10", filter{tail: 10}, "one\ntwo\nthree\nfour\nfive\n"},
		{"since 1h", filter{tail: -1, since: now.Add(-time.Hour)}, "three\nfour\nfive\n"},
		{"since 1h tail 1", filter{tail: 1, since: now.Add(-time.Hour)}, "five\n"},
		{"limit 6", filter{tail: -1, limit: 6}, "one\ntw"},
		{"limit 4", filter{tail: -1, limit: 4}, "one\n"},
		{"timestamps tail 1", filter{tail: 1, timestamps: true}, now.UTC().Format(time.RFC3339Nano) + " five\n"},
	} {
		if got := copyFiles(t, path, tc.f); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLineReaderKeepsAnUnfinishedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "0.log")
	writeLog(t, path, "first")
	r, err := openLines(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	defer f.Close()
	f.WriteString("sec")
	var got []string
	read := func() {
		for {
			l, ok, err := r.next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return
			}
			got = append(got, string(l))
		}
	}
	read()
	f.WriteString("ond\n")
	read()
	if strings.Join(got, "|") != "first|second" {
		t.Fatalf("got %q, want [first second]", got)
	}
}
