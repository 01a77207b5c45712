package cluster

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

// PTY is a pseudo-terminal from /dev/ptmx: the test holds the master and
// gives the slave to a command as its controlling terminal, as a person's
// terminal would (no tmux, no pty library).
type PTY struct {
	Master, Slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer
	changed       chan struct{} // a token after each read of the master
}

// OpenPTY opens a pseudo-terminal of rows x cols, closed when the test ends.
func OpenPTY(t testing.TB, rows, cols uint16) *PTY {
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
	p := &PTY{Master: m, Slave: s, changed: make(chan struct{}, 1)}
	p.Resize(t, rows, cols)
	t.Cleanup(func() { m.Close(); s.Close() })
	go p.read()
	return p
}

func (p *PTY) read() {
	buf := make([]byte, 4096)
	for {
		n, err := p.Master.Read(buf)
		p.mu.Lock()
		p.out.Write(buf[:n])
		p.mu.Unlock()
		select {
		case p.changed <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// Resize sets the terminal's size; the kernel sends SIGWINCH to the
// command in the foreground, as a terminal window being resized does.
func (p *PTY) Resize(t testing.TB, rows, cols uint16) {
	t.Helper()
	if err := unix.IoctlSetWinsize(int(p.Master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		t.Fatalf("set the pty's size: %v", err)
	}
}

// Attrs makes the slave the command's controlling terminal.
func (p *PTY) Attrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
}

// Type writes s as if typed.
func (p *PTY) Type(t testing.TB, s string) {
	t.Helper()
	if _, err := p.Master.WriteString(s); err != nil {
		t.Fatalf("type %q: %v", s, err)
	}
}

// WaitFor waits until the terminal showed want after offset and returns
// the offset past it.
func (p *PTY) WaitFor(t testing.TB, want string, offset int, d time.Duration) (int, bool) {
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
		select {
		case <-p.changed:
		case <-time.After(time.Until(deadline)):
		}
	}
	return offset, false
}

// Output is everything the terminal showed so far.
func (p *PTY) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Len is how many bytes the terminal showed so far.
func (p *PTY) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Len()
}
