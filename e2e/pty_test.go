package e2e

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pty is a pseudo-terminal from /dev/ptmx: the test holds the master and
// gives the slave to a command as its controlling terminal, as a person's
// terminal would (no tmux, no pty library).
type pty struct {
	master, slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer
}

func openPTY(t testing.TB, rows, cols uint16) *pty {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the pty's slave: %v", err)
	}
	p := &pty{master: m, slave: s}
	p.resize(t, rows, cols)
	t.Cleanup(func() { m.Close(); s.Close() })
	go p.read()
	return p
}

func (p *pty) read() {
	buf := make([]byte, 4096)
	for {
		n, err := p.master.Read(buf)
		p.mu.Lock()
		p.out.Write(buf[:n])
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// resize sets the terminal's size; the kernel sends SIGWINCH to the
// command in the foreground, as a terminal window being resized does.
func (p *pty) resize(t testing.TB, rows, cols uint16) {
	t.Helper()
	if err := unix.IoctlSetWinsize(int(p.master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		t.Fatalf("set the pty's size: %v", err)
	}
}

// attrs makes the slave the command's controlling terminal.
func (p *pty) attrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
}

func (p *pty) type_(t testing.TB, s string) {
	t.Helper()
	if _, err := p.master.WriteString(s); err != nil {
		t.Fatalf("type %q: %v", s, err)
	}
}

// waitFor waits until the terminal showed want after offset and returns
// the offset past it.
func (p *pty) waitFor(t testing.TB, want string, offset int, d time.Duration) (int, bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		b := p.out.Bytes()
		i := -1
		if offset <= len(b) {
			i = bytes.Index(b[offset:], []byte(want))
		}
		p.mu.Unlock()
		if i >= 0 {
			return offset + i + len(want), true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return offset, false
}

func (p *pty) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}
