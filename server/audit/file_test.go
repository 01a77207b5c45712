package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Past --audit-log-maxsize the file is renamed with a time stamp and a new
// one started; --audit-log-maxbackup keeps the newest backups; no line is
// lost or split.
func TestFileRotatesAndKeepsMaxBackups(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	clock := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	f, err := OpenFile(FileConfig{Path: path, MaxSizeMB: 1, MaxBackups: 2,
		Now: func() time.Time { clock = clock.Add(time.Second); return clock }})
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 1023) + "\n")
	const lines = 4200 // a little over four files of 1 MiB
	for i := 0; i < lines; i++ {
		if err := f.WriteLine(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "audit*.log"))
	if len(names) != 3 {
		t.Fatalf("got files %v, want audit.log and 2 backups", names)
	}
	total := 0
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 1<<20 || len(data)%len(line) != 0 || bytes.Count(data, []byte("\n")) != len(data)/len(line) {
			t.Errorf("%s: %d bytes, want at most 1 MiB of whole lines", n, len(data))
		}
		total += len(data) / len(line)
	}
	if want := lines - 2*1024; total != want { // the oldest backups (1024 lines each) were removed
		t.Errorf("lines kept: got %d, want %d", total, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "audit-2026-11-27T00-00-01.000.log")); !os.IsNotExist(err) {
		t.Errorf("the oldest backup is still there (%v)", err)
	}
}

// --audit-log-maxage removes backups older than that many days, at start
// as well; other files are left alone.
func TestFileRemovesOldBackupsAtStart(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, name := range []string{"audit-2026-11-20T00-00-00.000.log", "audit-2026-11-26T00-00-00.000.log", "audit-policy.log", "other.log"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, err := OpenFile(FileConfig{Path: filepath.Join(dir, "audit.log"), MaxAgeDays: 3, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := "audit-2026-11-26T00-00-00.000.log audit-policy.log audit.log other.log"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// Lines reach the file within the flush interval without a Close, and the
// file is private.
func TestFileFlushesInTheBackground(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "audit.log")
	f, err := OpenFile(FileConfig{Path: path, FlushInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.WriteLine([]byte("{\"a\":1}\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if string(data) == "{\"a\":1}\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5s the file holds %q, want the line", data)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode: got %v, want 0600", st.Mode().Perm())
	}
}
