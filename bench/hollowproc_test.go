package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/e2e/cluster"
)

var (
	hollowOnce sync.Once
	hollowBin  string
	hollowErr  error
)

// buildHollow compiles ./bench/hollow once per test process, next to the
// bramble binary TestMain built (and removes).
func buildHollow(b testing.TB) string {
	b.Helper()
	hollowOnce.Do(func() {
		hollowBin = filepath.Join(filepath.Dir(cluster.Bin), "hollow")
		cmd := exec.Command("go", "build", "-o", hollowBin, "./hollow")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		hollowErr = cmd.Run()
	})
	if hollowErr != nil {
		b.Fatalf("build bench/hollow: %v", hollowErr)
	}
	return hollowBin
}

// hollowProc is a running `hollow` process.
type hollowProc struct {
	cmd  *exec.Cmd
	logs *lockedBuffer
	done chan struct{}
}

// startHollow runs nodes hollow agents against s in a process of their own.
func startHollow(b testing.TB, s *target, nodes int, heartbeat time.Duration, extra ...string) *hollowProc {
	b.Helper()
	return startHollowAt(b, s.url, s.token, nodes, heartbeat, extra...)
}

// startHollowAt runs nodes hollow agents against the server at url in a
// process of their own; extra are more bench/hollow flags.
func startHollowAt(b testing.TB, url, token string, nodes int, heartbeat time.Duration, extra ...string) *hollowProc {
	b.Helper()
	args := append([]string{"-server", url, "-token", token, "-nodes", strconv.Itoa(nodes),
		"-heartbeat", heartbeat.String(), "-state-dir", b.TempDir(), "-log-level", "warn"}, extra...)
	h := &hollowProc{cmd: exec.Command(buildHollow(b), args...), logs: &lockedBuffer{}, done: make(chan struct{})}
	h.cmd.Stdout, h.cmd.Stderr = h.logs, h.logs
	if err := h.cmd.Start(); err != nil {
		b.Fatalf("start hollow: %v", err)
	}
	go func() { _ = h.cmd.Wait(); close(h.done) }()
	b.Cleanup(h.stop)
	return h
}

// stop sends SIGTERM and waits (SIGKILL after 30s).
func (h *hollowProc) stop() {
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.done:
	case <-time.After(30 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.done
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sb.Len() > 1<<20 {
		return len(p), nil // keep the first MiB
	}
	return l.sb.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sb.String()
}
