// Package meminfo reads the fields bramble needs from a Linux meminfo file
// (/proc/meminfo, or the same file under another root in tests): the
// server's memory limit (MemTotal), the agent's working set and its
// memory.available eviction signal (MemTotal, MemAvailable).
package meminfo

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Path is the kernel's meminfo file.
const Path = "/proc/meminfo"

// Field names as the kernel writes them.
const (
	Total     = "MemTotal"
	Available = "MemAvailable"
)

// Fields are the values read, by field name. Values the kernel gives in kB
// are in bytes; those without a unit (the HugePages_ counts) as written.
// A field the file lacks is absent.
type Fields map[string]uint64

// Read returns the named fields of the meminfo file at path. Lines of
// other fields are not looked at; a named field whose line is not
// "<name>: <number>[ kB]" is an error naming the line.
func Read(path string, names ...string) (Fields, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	out := make(Fields, len(names))
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || !want[name] {
			continue
		}
		v, err := value(rest)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d %q: %w", path, n, sc.Text(), err)
		}
		out[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// value parses what follows a field's colon: a number, in kB or bare.
func value(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	num, kb := strings.CutSuffix(s, " kB")
	v, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("value %q is not a number of kB", s)
	}
	if !kb {
		return v, nil
	}
	if v > (1<<64-1)>>10 {
		return 0, fmt.Errorf("value %q overflows bytes", s)
	}
	return v << 10, nil
}
