package logs

import (
	"context"
	"fmt"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// follow keeps reading the live file, across rotation, until ctx ends
// (the server cancelled, went quiet, or limitBytes was reached).
func (s *stream) follow(ctx context.Context, c *copier, path string, live **lineReader) error {
	t := time.NewTicker(s.h.cfg.Poll)
	defer t.Stop()
	for {
		if err := s.flush(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
		if err := poll(ctx, c, path, live); err != nil {
			return err
		}
		if len(s.buf) == 0 && time.Since(s.lastSend) > s.h.cfg.KeepAlive {
			if err := s.send(ctx, mqtt.RPCChunk{}); err != nil {
				return err
			}
		}
	}
}

// poll copies new lines of the live file; when the file was rotated, it
// also reads the files rotated since and moves on to the new live file.
func poll(ctx context.Context, c *copier, path string, live **lineReader) error {
	moved := !(*live).sameFile(path) // check first: the old file gets no lines after the move
	if err := c.drain(ctx, *live); err != nil || !moved {
		return err
	}
	next, err := openLines(path)
	if err != nil {
		return nil // not created yet: try again at the next poll
	}
	err = c.catchUp(ctx, path, *live)
	(*live).close()
	*live = next
	if err != nil {
		return err
	}
	return c.drain(ctx, next)
}

// emit buffers text and sends every full chunk.
func (s *stream) emit(ctx context.Context, b []byte) error {
	for len(b) > 0 {
		n := min(len(b), mqtt.RPCMaxChunk-len(s.buf))
		s.buf = append(s.buf, b[:n]...)
		b = b[n:]
		if len(s.buf) == mqtt.RPCMaxChunk {
			if err := s.flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush sends what is buffered.
func (s *stream) flush(ctx context.Context) error {
	if len(s.buf) == 0 {
		return nil
	}
	err := s.send(ctx, mqtt.RPCChunk{Data: s.buf})
	s.buf = s.buf[:0]
	return err
}

// send publishes the next chunk once the window allows it.
func (s *stream) send(ctx context.Context, c mqtt.RPCChunk) error {
	s.seq++
	c.ID, c.Seq = s.req.ID, s.seq
	if err := s.waitCredit(ctx, c.Seq); err != nil {
		return err
	}
	payload, err := c.Encode()
	if err != nil {
		return fmt.Errorf("encode log chunk: %w", err)
	}
	s.lastSend = time.Now()
	return s.pub.Publish(ctx, s.topic, 1, payload)
}

func (s *stream) waitCredit(ctx context.Context, seq int64) error {
	for {
		s.mu.Lock()
		ok := seq <= s.acked+mqtt.RPCWindow
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-s.credit:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}
