package logs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// errLimit ends a stream that reached limitBytes.
var errLimit = errors.New("limitBytes reached")

// filter is what a request asks of the log: kubectl's --tail, --since,
// --limit-bytes and --timestamps.
type filter struct {
	tail       int64 // entries from the end; -1 for all
	since      time.Time
	limit      int64 // bytes; 0 for no limit
	timestamps bool
}

// copier turns CRI lines into the text kubectl shows: joins partial lines,
// drops entries before since, keeps only the last tail entries of the
// history, and stops after limit bytes. Text goes to emit.
type copier struct {
	f       filter
	emit    func([]byte) error
	join    joiner
	ring    []entry // the last f.tail entries while reading history
	next    int     // where the ring's next entry goes once it is full
	history bool    // still reading what was written before the request
	written int64
	buf     []byte
}

func newCopier(f filter, emit func([]byte) error) *copier {
	return &copier{f: f, emit: emit, history: true}
}

// line takes one CRI line.
func (c *copier) line(l []byte) error {
	e, ok := c.join.add(l)
	if !ok || (!c.f.since.IsZero() && !e.ts.IsZero() && e.ts.Before(c.f.since)) {
		return nil
	}
	if c.history && c.f.tail >= 0 {
		c.keep(e)
		return nil
	}
	return c.write(e)
}

func (c *copier) keep(e entry) {
	switch {
	case c.f.tail == 0:
	case int64(len(c.ring)) < c.f.tail:
		c.ring = append(c.ring, e)
	default:
		c.ring[c.next] = e
		c.next = (c.next + 1) % len(c.ring)
	}
}

// endHistory writes the kept tail; later lines are written as they come.
func (c *copier) endHistory() error {
	c.history = false
	ring := slices.Concat(c.ring[c.next:], c.ring[:c.next])
	c.ring = nil
	for _, e := range ring {
		if err := c.write(e); err != nil {
			return err
		}
	}
	return nil
}

func (c *copier) write(e entry) error {
	b := e.format(c.buf[:0], c.f.timestamps)
	c.buf = b
	if c.f.limit > 0 && c.written+int64(len(b)) >= c.f.limit {
		b = b[:c.f.limit-c.written]
		c.written = c.f.limit
		if err := c.emit(b); err != nil {
			return err
		}
		return errLimit
	}
	c.written += int64(len(b))
	return c.emit(b)
}

// drain feeds every whole line r has so far to c.
func (c *copier) drain(ctx context.Context, r *lineReader) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, ok, err := r.next()
		if err != nil || !ok {
			return err
		}
		if err := c.line(line); err != nil {
			return err
		}
	}
}

// history copies the rotated files and then what the live file (already
// open as live) holds so far, and writes the tail.
func (c *copier) readHistory(ctx context.Context, path string, live *lineReader) error {
	old, err := rotated(path)
	if err != nil {
		return err
	}
	for _, p := range old {
		r, err := openLines(p)
		if err != nil {
			continue // rotated away meanwhile
		}
		err = c.drain(ctx, r)
		r.close()
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
	}
	if err := c.drain(ctx, live); err != nil {
		return err
	}
	return c.endHistory()
}

// catchUp reads the files rotated after old (now path.k) and before the
// live one: those several rotations between two polls left behind.
func (c *copier) catchUp(ctx context.Context, path string, old *lineReader) error {
	files, err := rotated(path)
	if err != nil {
		return err
	}
	for i, p := range files {
		if !old.sameFile(p) {
			continue
		}
		for _, newer := range files[i+1:] {
			r, err := openLines(newer)
			if err != nil {
				continue
			}
			err = c.drain(ctx, r)
			r.close()
			if err != nil {
				return fmt.Errorf("read %s: %w", newer, err)
			}
		}
		return nil
	}
	return nil // old was rotated away too: what it led to is lost
}
