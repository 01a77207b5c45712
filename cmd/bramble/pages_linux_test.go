package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
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

// TestReleasedPagesComeBackSmall maps a file the way the executable is
// mapped, written in one piece so that the kernel may cache it in large
// folios, touches all of it, releases it, then touches one byte in every
// MiB: each touch brings back a page or so, neither a whole large folio
// nor a read-ahead window. Unmapping alone (what the release did before)
// brings back 2 MiB per touch where the filesystem caches large folios, as
// ext4 does on Linux 6.18; without MADV_RANDOM each touch reads 64 KiB.
func TestReleasedPagesComeBackSmall(t *testing.T) {
	const size, step = 16 << 20, 1 << 20
	m := mapSyncedFile(t, size)
	touch(m, 4096)
	start := uintptr(unsafe.Pointer(&m[0]))
	if err := releaseMapping(start, start+size); err != nil {
		t.Fatal(err)
	}
	touch(m, step)
	const limit = size / step * 16
	if got := mappingRssKiB(t, start); got > limit {
		t.Errorf("Rss of the mapping after touching %d bytes: got %d KiB, want <= %d KiB", size/step, got, limit)
	}
}

// mapSyncedFile writes size bytes to a new file in one piece, syncs it (an
// installed binary's pages are clean) and maps it privately, read-only.
func mapSyncedFile(t *testing.T, size int) []byte {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "exe"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(bytes.Repeat([]byte{1}, size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(m) })
	return m
}

var touched int

func touch(m []byte, step int) {
	for i := 0; i < len(m); i += step {
		touched += int(m[i])
	}
}

// mappingRssKiB reads Rss of the mapping that starts at start from
// /proc/self/smaps.
func mappingRssKiB(t *testing.T, start uintptr) int {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		if isMappingHeader(line) {
			in = strings.HasPrefix(line, strconv.FormatUint(uint64(start), 16)+"-")
			continue
		}
		if v, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatalf("smaps Rss %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatalf("no mapping at %x in /proc/self/smaps", start)
	return 0
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
