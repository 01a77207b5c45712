package logs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/pods"
	"github.com/bramble-edge/bramble/mqtt"
)

// stream answers one log request: chunks of at most mqtt.RPCMaxChunk bytes,
// never more than mqtt.RPCWindow ahead of the server's ack.
type stream struct {
	h      *Handler
	pub    Publisher
	req    *mqtt.RPCRequest
	topic  string
	cancel context.CancelCauseFunc
	refuse bool // over MaxStreams

	mu     sync.Mutex
	acked  int64
	heard  time.Time // the server's last ack or heartbeat
	credit chan struct{}

	seq      int64 // the last chunk sent (only the stream goroutine)
	lastSend time.Time
	buf      []byte
}

func newStream(h *Handler, pub Publisher, req *mqtt.RPCRequest, cancel context.CancelCauseFunc) *stream {
	return &stream{h: h, pub: pub, req: req, cancel: cancel, heard: time.Now(), credit: make(chan struct{}, 1),
		topic: mqtt.RPCResponseTopic(h.cfg.Node, req.ID)}
}

// codedError is a failure the server should show with an HTTP-like code.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

func (s *stream) ack(seq int64) {
	s.mu.Lock()
	s.heard = time.Now()
	s.acked = max(s.acked, seq)
	s.mu.Unlock()
	select {
	case s.credit <- struct{}{}:
	default:
	}
}

// run serves the request and sends the last chunk: EOF, or the error.
func (s *stream) run(ctx context.Context) {
	go s.watchdog(ctx)
	err := s.serve(ctx)
	if err == nil || errors.Is(err, errLimit) {
		err = s.flush(ctx) // what limitBytes or the end left buffered
	}
	if ctx.Err() != nil {
		s.h.log.Debug("log stream ended", "id", s.req.ID, "why", context.Cause(ctx))
		return
	}
	last := mqtt.RPCChunk{EOF: true}
	var ce *codedError
	switch {
	case err == nil:
	case errors.As(err, &ce):
		last.Error, last.Code = truncate(err.Error()), ce.code
	default:
		last.Error, last.Code = truncate(err.Error()), http.StatusInternalServerError
	}
	if err := s.send(ctx, last); err != nil {
		s.h.log.Debug("cannot send the end of a log stream", "id", s.req.ID, "err", err)
	}
}

func truncate(s string) string { return s[:min(len(s), 1000)] }

// watchdog ends the stream when the server has gone quiet.
func (s *stream) watchdog(ctx context.Context) {
	t := time.NewTicker(s.h.cfg.IdleTimeout / 4)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		quiet := time.Since(s.heard)
		s.mu.Unlock()
		if quiet > s.h.cfg.IdleTimeout {
			s.cancel(errIdle)
			return
		}
	}
}

func (s *stream) serve(ctx context.Context) error {
	if s.refuse {
		return &codedError{http.StatusTooManyRequests, fmt.Errorf("node %s is already serving %d log streams", s.h.cfg.Node, s.h.cfg.MaxStreams)}
	}
	r := s.req
	if r.Kind == mqtt.RPCKindMetrics {
		return s.serveMetrics(ctx)
	}
	path, err := pods.LogPath(s.h.cfg.PodLogDir, r.Namespace, r.Pod, types.UID(r.UID), r.Container, r.Previous)
	if err != nil {
		return s.notFound(err)
	}
	live, err := openLines(path)
	if err != nil {
		return s.notFound(err)
	}
	defer func() { live.close() }()
	c := newCopier(s.filter(), func(b []byte) error { return s.emit(ctx, b) })
	if err := c.readHistory(ctx, path, live); err != nil || !r.Follow {
		return err
	}
	return s.follow(ctx, c, path, &live)
}

func (s *stream) notFound(err error) error {
	r := s.req
	if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("logs of container %s in pod %s/%s: %w", r.Container, r.Namespace, r.Pod, err)
	}
	what := "container"
	if r.Previous {
		what = "previous terminated container"
	}
	return &codedError{http.StatusNotFound, fmt.Errorf("%s %q in pod %q not found on node %s (no log file)", what, r.Container, r.Pod, s.h.cfg.Node)}
}

func (s *stream) filter() filter {
	f := filter{tail: -1, timestamps: s.req.Timestamps}
	if s.req.TailLines != nil {
		f.tail = *s.req.TailLines
	}
	if s.req.SinceSeconds != nil {
		f.since = time.Now().Add(-time.Duration(*s.req.SinceSeconds) * time.Second)
	}
	if s.req.LimitBytes != nil {
		f.limit = *s.req.LimitBytes
	}
	return f
}
