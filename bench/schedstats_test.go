package bench

import (
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadAverage is the 1-minute load average from /proc/loadavg.
func loadAverage(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		b.Fatal(err)
	}
	v, err := strconv.ParseFloat(strings.Fields(string(data))[0], 64)
	if err != nil {
		b.Fatalf("/proc/loadavg %q: %v", data, err)
	}
	return v
}

// cpuProfile profiles this process (the server) into
// $BRAMBLE_BENCH_PPROF_DIR/name.cpu.pprof until the returned func is
// called; nothing when the variable is unset.
func cpuProfile(b *testing.B, name string) (stop func()) {
	dir := os.Getenv("BRAMBLE_BENCH_PPROF_DIR")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, name+".cpu.pprof"))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// processCPU is the user+system CPU time this process used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
