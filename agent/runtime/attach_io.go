package runtime

import (
	"context"
	"io"

	"github.com/containerd/containerd"
)

// pump delivers the subscriber's output to s until the output ends, the
// client detaches (detached closes) or ctx ends.
func (c *console) pump(ctx context.Context, sub *subscriber, s ExecStreams, detached <-chan struct{}) error {
	for {
		select {
		case ck := <-sub.ch:
			if err := c.deliver(s, ck); err != nil {
				return err
			}
		case <-sub.ended:
			for {
				select {
				case ck := <-sub.ch:
					if err := c.deliver(s, ck); err != nil {
						return err
					}
				default:
					return sub.err
				}
			}
		case <-detached:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (c *console) deliver(s ExecStreams, ck chunk) error {
	w := s.Stdout
	if ck.stderr && !c.tty {
		w = s.Stderr
	}
	if w == nil {
		return nil
	}
	_, err := w.Write(ck.p)
	return err
}

// feed copies a client's stdin into the container's until the client's
// ends; once the container's stdin is closed the rest is dropped.
func (c *console) feed(r io.Reader) {
	if _, err := io.Copy(c.stdinW, r); err != nil {
		_, _ = io.Copy(io.Discard, r)
	}
}

// closeStdin closes the container's stdin for good (stdinOnce).
func (c *console) closeStdin() {
	c.mu.Lock()
	shut := c.stdinShut
	c.stdinShut = true
	c.mu.Unlock()
	if shut {
		return
	}
	c.stdinW.Close()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	_ = c.task.CloseIO(ctx, containerd.WithStdinCloser) // the container may have exited already
}

// resizeLoop applies the client's terminal sizes to the container's.
func (c *console) resizeLoop(ctx context.Context, sizes <-chan TermSize) {
	if sizes == nil || !c.tty {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case sz, ok := <-sizes:
			if !ok {
				return
			}
			_ = c.task.Resize(ctx, uint32(sz.Width), uint32(sz.Height)) // racing the exit fails harmlessly
		}
	}
}
