package pods

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogTailKeepsTheLastLinesAsPrinted(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "2026-11-27T05:00:00.000000000Z stdout F line %d\n", i)
	}
	b.WriteString("2026-11-27T05:00:01.000000000Z stderr P half \n")
	b.WriteString("2026-11-27T05:00:01.000000000Z stderr F and half\n")
	path := filepath.Join(t.TempDir(), "0.log")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got := logTail(path, 80, 2048)
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 80 || lines[0] != "line 21" || lines[79] != "half and half" {
		t.Errorf("logTail: got %d lines, first %q last %q; want 80 from %q to %q", len(lines), lines[0], lines[len(lines)-1], "line 21", "half and half")
	}
	if got, want := logTail(path, 80, 20), "ne 99\nhalf and half\n"; got != want {
		t.Errorf("logTail capped at 20 bytes: got %q want %q", got, want)
	}
}
