package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times: 100 on
// every Linux architecture bramble builds for.
const clockTicks = 100

// childCPU is the CPU time (user and system) a child process has used so
// far, from /proc/PID/stat.
func childCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	d, err := procStatCPU(pid)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func procStatCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: count fields after its ')'.
	end := strings.LastIndexByte(string(raw), ')')
	if end < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no ')' after the command name", pid)
	}
	f := strings.Fields(string(raw[end+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command name, want at least 13", pid, len(f))
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %q is not a tick count", pid, s)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

func TestProcStatCPUOfSelf(t *testing.T) {
	busy := time.Now()
	for time.Since(busy) < 50*time.Millisecond {
	}
	d, err := procStatCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d < 30*time.Millisecond {
		t.Errorf("own CPU from /proc: got %s after 50 ms of spinning, want at least 30 ms", d)
	}
}
