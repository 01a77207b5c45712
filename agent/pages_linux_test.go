package agent

import (
	"os"
	"strings"
	"testing"
)

func TestReadOnlyMappingOf(t *testing.T) {
	const exe = "/usr/local/bin/bramble"
	for _, tt := range []struct {
		line string
		ok   bool
	}{
		{"00400000-01a00000 r-xp 00000000 08:01 123 /usr/local/bin/bramble", true},
		{"01a00000-03000000 r--p 01600000 08:01 123 /usr/local/bin/bramble", true},
		{"03000000-03100000 rw-p 02c00000 08:01 123 /usr/local/bin/bramble", false}, // data: written
		{"03000000-03100000 r--s 02c00000 08:01 123 /usr/local/bin/bramble", false}, // shared
		{"7f0000000000-7f0000100000 r-xp 00000000 08:01 9 /usr/lib/x86_64-linux-gnu/libc.so.6", false},
		{"7f0000000000-7f0000100000 rw-p 00000000 00:00 0", false},
		{"zz-01 r-xp 00000000 08:01 123 /usr/local/bin/bramble", false},
	} {
		_, _, ok := readOnlyMappingOf(tt.line, exe)
		if ok != tt.ok {
			t.Errorf("%q: got %v, want %v", tt.line, ok, tt.ok)
		}
	}
}

func TestCleanReadOnlyMappings(t *testing.T) {
	const exe = "/usr/local/bin/bramble"
	smaps := `00400000-01a00000 r-xp 00000000 08:01 123 /usr/local/bin/bramble
Rss:               16356 kB
Anonymous:             0 kB
01a00000-03000000 r--p 01600000 08:01 123 /usr/local/bin/bramble
Rss:               22248 kB
Anonymous:             0 kB
03000000-03010000 r--p 02c00000 08:01 123 /usr/local/bin/bramble
Rss:                  64 kB
Anonymous:            64 kB
03010000-03100000 rw-p 02c10000 08:01 123 /usr/local/bin/bramble
Anonymous:           700 kB
7f0000000000-7f0000100000 r-xp 00000000 08:01 9 /usr/lib/x86_64-linux-gnu/libc.so.6
Anonymous:             0 kB
`
	got := cleanReadOnlyMappings([]byte(smaps), exe)
	want := [][2]uintptr{{0x400000, 0x1a00000}, {0x1a00000, 0x3000000}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %x, want %x (RELRO with anonymous pages, writable data and libc left alone)", got, want)
	}
}

// TestReleaseStartupPages releases the test binary's read-only pages and
// goes on running code and reading tables from it: the pages come back.
func TestReleaseStartupPages(t *testing.T) {
	before := rssFileKiB(t)
	n, err := releaseStartupPages()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("released nothing: found no read-only mapping of the test binary")
	}
	after := rssFileKiB(t)
	if after >= before {
		t.Errorf("RssFile: got %d KiB after, %d KiB before; want less", after, before)
	}
	// Code and read-only data fault back in.
	if got := strings.Repeat("ab", 3); got != "ababab" {
		t.Errorf("after release: got %q", got)
	}
}

func rssFileKiB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			var n int
			for _, c := range strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")) {
				n = n*10 + int(c-'0')
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}
