package runtime

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/containerd/containerd"
	"github.com/containerd/containerd/cio"

	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
)

// A container started with stdin or a TTY (kubectl attach, kubectl run
// -it) has its IO held by the agent rather than by the shim's log driver:
// the agent keeps its stdin (a pipe into containerd's FIFO) and copies
// its output both to its log file, as CRI lines, and to the clients
// attached at the moment (attach.go). Output written before a client
// attaches is only in the log, as upstream.

// console is one such container's IO.
type console struct {
	id        string
	tty       bool
	stdinOnce bool
	task      containerd.Task

	stdinR *io.PipeReader
	stdinW *io.PipeWriter
	logOut *io.PipeWriter // to the log copier, stream "stdout"
	logErr *io.PipeWriter // "stderr"
	logs   sync.WaitGroup // the log copiers
	done   chan struct{}  // the output has ended

	mu        sync.Mutex
	subs      map[*subscriber]struct{}
	stdinShut bool // stdin is closed for good (stdinOnce, or the end)
}

// consoleSet holds the live consoles by container id; its zero value is
// ready.
type consoleSet struct {
	mu sync.Mutex
	m  map[string]*console
}

func (cs *consoleSet) put(c *console) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m == nil {
		cs.m = map[string]*console{}
	}
	cs.m[c.id] = c
}

func (cs *consoleSet) get(id string) *console {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.m[id]
}

func (cs *consoleSet) drop(c *console) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m[c.id] == c {
		delete(cs.m, c.id)
	}
}

// startWithConsole creates the task with agent-held IO and starts it.
func (c *Containerd) startWithConsole(ctx context.Context, ctr containerd.Container, s ContainerSpec) error {
	con, err := newConsole(s, c.cfg.LogMaxBytes, c.cfg.LogMaxFiles)
	if err != nil {
		return fmt.Errorf("container %s: %w", s.ID, err)
	}
	task, err := ctr.NewTask(ctx, cio.NewCreator(con.ioOpts()...))
	if err != nil {
		con.finish()
		return fmt.Errorf("create task %s: %w", s.ID, err)
	}
	c.hold(con, task)
	return c.startTask(ctx, ctr, task, s)
}

// ioOpts are the console's streams for containerd's cio.
func (c *console) ioOpts() []cio.Opt {
	opts := []cio.Opt{cio.WithStreams(c.stdinR, streamWriter{c, false}, streamWriter{c, true}), cio.WithFIFODir(execFIFODir)}
	if c.tty {
		opts = append(opts, cio.WithTerminal)
	}
	return opts
}

// hold keeps the console of task until its output ends.
func (c *Containerd) hold(con *console, task containerd.Task) {
	con.task = task
	c.consoles.put(con)
	go func() {
		task.IO().Wait() // the output ends with the process
		task.IO().Close()
		con.finish()
		c.consoles.drop(con)
	}()
}

// newConsole opens the log and starts its copiers; an empty LogPath
// discards the output.
func newConsole(s ContainerSpec, maxBytes int64, maxFiles int) (*console, error) {
	con := &console{id: s.ID, tty: s.TTY, stdinOnce: s.StdinOnce, done: make(chan struct{}),
		subs: map[*subscriber]struct{}{}}
	con.stdinR, con.stdinW = io.Pipe()
	var w *logdriver.Writer
	if s.LogPath != "" {
		var err error
		if w, err = logdriver.OpenWriter(s.LogPath, maxBytes, maxFiles); w == nil {
			return nil, err
		}
	}
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	con.logOut, con.logErr = outW, errW
	con.logs.Add(2)
	for _, p := range []struct {
		name string
		r    io.Reader
	}{{"stdout", outR}, {"stderr", errR}} {
		go func() {
			defer con.logs.Done()
			if w == nil {
				_, _ = io.Copy(io.Discard, p.r)
				return
			}
			_ = logdriver.Copy(w, p.name, p.r) // a full disk drops lines, never blocks the container
		}()
	}
	go func() {
		con.logs.Wait()
		if w != nil {
			_ = w.Close()
		}
	}()
	return con, nil
}

// finish ends the console once the container's output has ended:
// attached clients see the end, the log is flushed and closed.
func (c *console) finish() {
	c.mu.Lock()
	c.stdinShut = true
	for s := range c.subs {
		s.end(nil)
	}
	c.mu.Unlock()
	c.stdinR.CloseWithError(io.ErrClosedPipe)
	c.logOut.Close()
	c.logErr.Close()
	close(c.done)
}
