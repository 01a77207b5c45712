package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrNoConsole: the container has no agent-held IO to attach to (it was
// started without stdin and tty, or has ended).
var ErrNoConsole = errors.New("no stdin or terminal to attach to")

// errSlowClient cuts off an attached client that does not keep up with
// the container's output: the container and its log never wait for it.
var errSlowClient = errors.New("attached client too slow for the container's output: detached")

// subscriberChunks bounds what one attached client may lag behind: this
// many reads of the container's output (at most 32 KiB each).
const subscriberChunks = 64

// HasConsole reports whether id can be attached to now.
func (c *Containerd) HasConsole(id string) bool { return c.consoles.get(id) != nil }

// AttachStream attaches s to the running container id: its output from
// now on goes to s.Stdout and s.Stderr (one stream with a TTY), s.Stdin
// to its stdin and s.Resize to its terminal. It returns when the
// container's output ends, when s.Stdin ends (the client detaches; with
// stdinOnce the container's stdin is then closed for good), or when ctx
// ends.
func (c *Containerd) AttachStream(ctx context.Context, id string, s ExecStreams) error {
	con := c.consoles.get(id)
	if con == nil {
		return fmt.Errorf("attach to %s: %w", id, ErrNoConsole)
	}
	sub := con.subscribe()
	defer con.unsubscribe(sub)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	go con.resizeLoop(rctx, s.Resize)
	var detached chan struct{}
	if s.Stdin != nil {
		detached = make(chan struct{})
		go func() { con.feed(s.Stdin); close(detached) }()
	}
	err := con.pump(ctx, sub, s, detached)
	if s.Stdin != nil && con.stdinOnce {
		con.closeStdin()
	}
	return err
}

type chunk struct {
	stderr bool
	p      []byte
}

// subscriber is one attached client's share of the output.
type subscriber struct {
	ch    chan chunk
	ended chan struct{}
	once  sync.Once
	err   error
}

func (s *subscriber) end(err error) {
	s.once.Do(func() { s.err = err; close(s.ended) })
}

func (c *console) subscribe() *subscriber {
	s := &subscriber{ch: make(chan chunk, subscriberChunks), ended: make(chan struct{})}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.done:
		s.end(nil)
	default:
		c.subs[s] = struct{}{}
	}
	return s
}

func (c *console) unsubscribe(s *subscriber) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.subs, s)
}

// broadcast offers p to every attached client without waiting.
func (c *console) broadcast(stderr bool, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.subs) == 0 {
		return
	}
	ck := chunk{stderr: stderr, p: append([]byte(nil), p...)}
	for s := range c.subs {
		select {
		case s.ch <- ck:
		default:
			s.end(errSlowClient)
			delete(c.subs, s)
		}
	}
}

// streamWriter is what containerd copies the container's output into.
type streamWriter struct {
	c      *console
	stderr bool
}

func (w streamWriter) Write(p []byte) (int, error) {
	log := w.c.logOut
	if w.stderr {
		log = w.c.logErr
	}
	_, _ = log.Write(p) // the log copier never blocks for long; closed only at the end
	w.c.broadcast(w.stderr, p)
	return len(p), nil
}
