package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// madvPageout is MADV_PAGEOUT (Linux 5.4), which package syscall lacks.
const madvPageout = 21

// releaseStartupPages gives back the clean, read-only pages of bramble's
// own executable (code, and the read-only data holding type and function
// tables). One binary carries the server, the agent and the containerd
// client, and start-up touches far more of it than an idle process uses.
// Worse, the kernel may cache the file in folios of up to 2 MiB and maps a
// whole folio when one byte of it is touched, so the few bytes start-up read
// keep most of the executable resident.
//
// For each such mapping: MADV_RANDOM, so that what faults back in comes one
// page at a time instead of a read-ahead window or a whole large folio;
// MADV_PAGEOUT, which drops the folios only this process maps from the page
// cache (a folio dropped comes back as small pages); MADV_DONTNEED, which
// unmaps the rest. Last, the executable's cached pages that no process maps
// any more are dropped (POSIX_FADV_DONTNEED), which catches the folios
// MADV_PAGEOUT passed over (one still on a CPU's list of new pages, say);
// folios another process maps stay cached. What is resident afterwards is
// what the process goes on using. Only private
// mappings without write permission and without a single anonymous
// (copied-on-write) page are released: their pages are identical to the
// file. Relocated read-only data of a cgo binary (RELRO: written by the
// dynamic linker, then made read-only) holds anonymous pages and is left
// alone.
func releaseStartupPages() (released int64, err error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, fmt.Errorf("release start-up pages: %w", err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("release start-up pages: %w", err)
	}
	for _, m := range cleanReadOnlyMappings(smaps, exe) {
		if err := releaseMapping(m[0], m[1]); err != nil {
			return released, fmt.Errorf("release start-up pages %x-%x: %w", m[0], m[1], err)
		}
		released += int64(m[1] - m[0])
	}
	if err := dropUnmappedPages("/proc/self/exe"); err != nil {
		return released, fmt.Errorf("release start-up pages: %w", err)
	}
	return released, nil
}

// dropUnmappedPages asks the kernel to drop the clean cached pages of file
// path that no process maps. /proc/self/exe opens the running executable
// even once an upgrade has replaced the file at its path.
func dropUnmappedPages(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("fadvise %s: %w", path, err)
	}
	return nil
}

// releaseMapping advises one mapping as releaseStartupPages describes. A
// kernel older than 5.4 refuses MADV_PAGEOUT (EINVAL); the pages are then
// only unmapped.
func releaseMapping(start, end uintptr) error {
	if err := madvise(start, end, syscall.MADV_RANDOM); err != nil {
		return fmt.Errorf("MADV_RANDOM: %w", err)
	}
	if err := madvise(start, end, madvPageout); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("MADV_PAGEOUT: %w", err)
	}
	if err := madvise(start, end, syscall.MADV_DONTNEED); err != nil {
		return fmt.Errorf("MADV_DONTNEED: %w", err)
	}
	return nil
}

// cleanReadOnlyMappings lists the [start, end) ranges of smaps entries that
// map path privately without write permission and hold no anonymous pages.
func cleanReadOnlyMappings(smaps []byte, path string) [][2]uintptr {
	var out [][2]uintptr
	var cur [2]uintptr
	candidate := false
	flush := func() {
		if candidate {
			out = append(out, cur)
		}
		candidate = false
	}
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		line := sc.Text()
		if start, end, ok := readOnlyMappingOf(line, path); ok {
			flush()
			cur, candidate = [2]uintptr{start, end}, true
			continue
		}
		if isMappingHeader(line) {
			flush()
			continue
		}
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok && strings.TrimSpace(v) != "0 kB" {
			candidate = false
		}
	}
	flush()
	return out
}

// isMappingHeader tells an smaps mapping line ("start-end perms ...") from
// the "Key: value" lines under it.
func isMappingHeader(line string) bool {
	f := strings.Fields(line)
	return len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":")
}

// readOnlyMappingOf parses one /proc/self/maps line and reports the range
// of a private, non-writable mapping of path.
func readOnlyMappingOf(line, path string) (start, end uintptr, ok bool) {
	f := strings.Fields(line)
	if len(f) < 6 || strings.Join(f[5:], " ") != path {
		return 0, 0, false
	}
	perms := f[1]
	if len(perms) != 4 || perms[1] != '-' || perms[3] != 'p' {
		return 0, 0, false
	}
	lo, hi, found := strings.Cut(f[0], "-")
	a, err1 := strconv.ParseUint(lo, 16, 64)
	b, err2 := strconv.ParseUint(hi, 16, 64)
	if !found || err1 != nil || err2 != nil || b <= a {
		return 0, 0, false
	}
	return uintptr(a), uintptr(b), true
}

// processCPU is the user and system CPU time this process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func madvise(start, end uintptr, advice int) error {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, uintptr(advice))
	if errno != 0 {
		return errno
	}
	return nil
}

// fileRSS is the process's resident file-backed memory (RssFile in
// /proc/self/status), in bytes; 0 when it cannot be read.
func fileRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
