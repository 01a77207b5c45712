package meminfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSample: the fields asked for, in bytes, from a machine's file;
// the unitless HugePages counts as written; a field not asked for or
// missing is absent.
func TestReadSample(t *testing.T) {
	got, err := Read("testdata/meminfo", Total, Available, "HugePages_Total", "NoSuchField")
	if err != nil {
		t.Fatal(err)
	}
	want := Fields{Total: 24684096 << 10, Available: 23272732 << 10, "HugePages_Total": 0}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %d, want %d", k, got[k], v)
		}
	}
}

// TestReadMalformed: a malformed line of a field asked for is an error
// naming the file and the line; one of a field not asked for is not
// looked at.
func TestReadMalformed(t *testing.T) {
	for _, tt := range []struct {
		text, want string // want: "" for no error, else part of the error
	}{
		{"MemTotal: 100 kB\nMemAvailable:   lots kB\n", `line 2 "MemAvailable:   lots kB"`},
		{"MemTotal: -1 kB\n", `line 1 "MemTotal: -1 kB"`},
		{"MemTotal: 18446744073709551615 kB\n", "overflows"},
		{"MemTotal: 100 kB\nMemFree: ??\nno colon here\n", ""},
	} {
		path := filepath.Join(t.TempDir(), "meminfo")
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(path, Total, Available)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: got error %v, want none", tt.text, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path)):
			t.Errorf("%q: got error %v, want one naming %s and %s", tt.text, err, path, tt.want)
		}
	}
}

// TestReadMissingFile: the open error is returned.
func TestReadMissingFile(t *testing.T) {
	if _, err := Read(filepath.Join(t.TempDir(), "none")); !os.IsNotExist(err) {
		t.Fatalf("got %v, want a not-exist error", err)
	}
}
