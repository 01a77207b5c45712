package runtime

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/cio"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// ExecStreams are an interactive process's streams (kubectl exec). Nil
// Stdin gives the process none; with TTY the process gets a terminal and
// its output goes to Stdout alone.
type ExecStreams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	TTY            bool
	// Resize carries the terminal's size (TTY only); it may be nil.
	Resize <-chan TermSize
}

// TermSize is a terminal's size in characters.
type TermSize struct{ Width, Height uint16 }

// ExecStream runs cmd in the running container id with s's streams and
// returns its exit code. When Stdin ends, the process's stdin is closed.
// The process is killed when ctx ends.
func (c *Containerd) ExecStream(ctx context.Context, id string, cmd []string, s ExecStreams) (int, error) {
	if len(cmd) == 0 {
		return 0, fmt.Errorf("exec in %s: empty command", id)
	}
	task, pspec, err := c.execTarget(ctx, id)
	if err != nil {
		return 0, err
	}
	pspec.Args, pspec.Terminal = cmd, s.TTY
	if s.TTY {
		// The process starts with the client's terminal size: a shell
		// asked for its size before the first resize landed would see
		// 0x0 (stty size fails, editors draw a 0x0 screen).
		if sz, ok := firstSize(ctx, s.Resize); ok {
			pspec.ConsoleSize = &specs.Box{Width: uint(sz.Width), Height: uint(sz.Height)}
		}
	}
	stdin := &stdinCloser{r: s.Stdin, ready: make(chan struct{})}
	opts := []cio.Opt{cio.WithStreams(stdin.reader(), orDiscard(s.Stdout), orDiscard(s.Stderr)), cio.WithFIFODir(execFIFODir)}
	if s.TTY {
		opts = append(opts, cio.WithTerminal)
	}
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	proc, err := task.Exec(ctx, execID(), pspec, cio.NewCreator(opts...))
	stdin.start(bg, proc) // containerd copies stdin from within Exec: it waits for this
	if err != nil {
		return 0, fmt.Errorf("exec in %s: %w", id, err)
	}
	defer proc.Delete(bg, containerd.WithProcessKill)
	rctx, stopResize := context.WithCancel(ctx)
	defer stopResize()
	started := make(chan struct{})
	go resizeLoop(rctx, proc, s.Resize, started)
	code, err := runProcess(ctx, bg, proc, started, 0)
	if err != nil {
		return 0, fmt.Errorf("exec in %s: %w", id, err)
	}
	return code, nil
}

// firstSizeWait bounds how long a terminal process waits for the
// client's first size; kubectl sends it as soon as the stream is up.
const firstSizeWait = time.Second

// firstSize waits for the client's first terminal size (no longer than
// firstSizeWait); false when none came.
func firstSize(ctx context.Context, sizes <-chan TermSize) (TermSize, bool) {
	if sizes == nil {
		return TermSize{}, false
	}
	t := time.NewTimer(firstSizeWait)
	defer t.Stop()
	select {
	case sz, ok := <-sizes:
		return sz, ok && sz.Width > 0 && sz.Height > 0
	case <-t.C:
	case <-ctx.Done():
	}
	return TermSize{}, false
}

// resizeLoop applies the terminal sizes; those sent before the process
// started (kubectl sends the first one at once) wait for the start, the
// newest winning.
func resizeLoop(ctx context.Context, proc containerd.Process, sizes <-chan TermSize, started <-chan struct{}) {
	if sizes == nil {
		return
	}
	var pending *TermSize
	for {
		select {
		case <-ctx.Done():
			return
		case <-started:
			started = nil
		case sz, ok := <-sizes:
			if !ok {
				return
			}
			pending = &sz
		}
		if pending != nil && started == nil {
			_ = proc.Resize(ctx, uint32(pending.Width), uint32(pending.Height)) // a resize racing the exit fails harmlessly
			pending = nil
		}
	}
}

// stdinCloser tells containerd to close the process's stdin once the
// client's stdin has ended. containerd starts copying from it inside
// Exec, before the process is known: reads wait for start.
type stdinCloser struct {
	r     io.Reader
	ready chan struct{}
	bg    context.Context
	proc  containerd.Process // nil when Exec failed
	once  sync.Once
}

func (s *stdinCloser) start(bg context.Context, proc containerd.Process) {
	s.bg, s.proc = bg, proc
	close(s.ready)
}

func (s *stdinCloser) reader() io.Reader {
	if s.r == nil {
		return nil
	}
	return s
}

func (s *stdinCloser) Read(p []byte) (int, error) {
	<-s.ready
	if s.proc == nil {
		return 0, io.EOF
	}
	n, err := s.r.Read(p)
	if err != nil {
		s.once.Do(func() { _ = s.proc.CloseIO(s.bg, containerd.WithStdinCloser) })
	}
	return n, err
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
