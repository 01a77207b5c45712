package logs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/internal/periodic"
	"github.com/bramble-edge/bramble/mqtt"
)

// ackEvery: the server acks every this many chunks written.
const ackEvery = mqtt.RPCWindow / 2

// StreamLogs asks node's agent for the container log opts names and copies
// it to w (flushing when w is an http.Flusher) until the agent's last chunk
// or until ctx ends; then it tells the agent to stop.
func (s *Streamer) StreamLogs(ctx context.Context, node string, pod *corev1.Pod, opts *corev1.PodLogOptions, w io.Writer) error {
	if err := s.subscribe(); err != nil {
		return err
	}
	id := newID()
	return s.call(ctx, node, request(id, pod, opts), w)
}

// call publishes req (its kind logs or metrics) to node's agent and copies
// the answer to w, with the flow control of package mqtt's contract.
func (s *Streamer) call(ctx context.Context, node string, req *mqtt.RPCRequest, w io.Writer) error {
	id := req.ID
	c := s.register(node, id)
	defer s.unregister(node, id)
	sess := &session{s: s, node: node, id: id, call: c, w: w, next: 1, pending: map[int64]*mqtt.RPCChunk{}}
	if err := sess.publish(ctx, req); err != nil {
		return apierrors.NewServiceUnavailable(fmt.Sprintf("ask node %q for %s: %v", node, req.Kind, err))
	}
	hbCtx, stopHB := context.WithCancel(ctx)
	defer stopHB()
	go sess.heartbeat(hbCtx)
	err := sess.receive(ctx)
	if !errors.Is(err, errDone) {
		sess.cancelAgent(ctx)
		return err
	}
	return nil
}

// errDone: the agent sent its last chunk without an error.
var errDone = errors.New("log stream complete")

// session is one StreamLogs in progress.
type session struct {
	s       *Streamer
	node    string
	id      string
	call    *call
	w       io.Writer
	next    int64 // the next chunk to write
	written atomic.Int64
	pending map[int64]*mqtt.RPCChunk // arrived ahead of next
}

func (x *session) publish(ctx context.Context, r *mqtt.RPCRequest) error {
	payload, err := r.Encode()
	if err != nil {
		return fmt.Errorf("encode log request: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return x.s.bus.Publish(pctx, mqtt.RPCRequestTopic(x.node), 1, false, payload)
}

func (x *session) ack(ctx context.Context) {
	if err := x.publish(ctx, &mqtt.RPCRequest{ID: x.id, Kind: mqtt.RPCKindAck, Seq: x.written.Load()}); err != nil {
		x.s.log.Debug("cannot ack log chunks", "node", x.node, "id", x.id, "err", err)
	}
}

// heartbeat repeats the ack so the agent knows someone still listens.
func (x *session) heartbeat(ctx context.Context) {
	periodic.Every(ctx, x.s.Heartbeat, func() { x.ack(ctx) })
}

// cancelAgent tells the agent to stop, even though ctx may be over.
func (x *session) cancelAgent(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := x.publish(cctx, &mqtt.RPCRequest{ID: x.id, Kind: mqtt.RPCKindCancel}); err != nil {
		x.s.log.Debug("cannot cancel a log stream", "node", x.node, "id", x.id, "err", err)
	}
}

// receive writes chunks in order until the last one, a timeout or ctx.
func (x *session) receive(ctx context.Context) error {
	wait := x.s.FirstReply
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-x.call.overflow:
			return fmt.Errorf("node %q sent more log chunks than the window allows", x.node)
		case <-timer.C:
			return x.timeout(wait)
		case c := <-x.call.chunks:
			if err := x.arrive(ctx, c); err != nil {
				return err
			}
			wait = x.s.Idle
			timer.Reset(wait)
		}
	}
}

func (x *session) timeout(wait time.Duration) error {
	if x.next == 1 {
		return apierrors.NewServiceUnavailable(fmt.Sprintf(
			"node %q did not answer the log request within %s: is its agent running?", x.node, wait))
	}
	return fmt.Errorf("node %q sent nothing for %s: its agent stopped streaming the log", x.node, wait)
}

// arrive puts c in order and writes every chunk that is now next.
func (x *session) arrive(ctx context.Context, c *mqtt.RPCChunk) error {
	switch {
	case c.Seq < x.next:
		return nil // a QoS 1 duplicate
	case c.Seq >= x.next+2*mqtt.RPCWindow:
		return fmt.Errorf("node %q sent log chunk %d while %d was due", x.node, c.Seq, x.next)
	}
	x.pending[c.Seq] = c
	for c := x.pending[x.next]; c != nil; c = x.pending[x.next] {
		delete(x.pending, x.next)
		if err := x.write(c); err != nil {
			return err
		}
		x.next++
		x.written.Store(c.Seq)
		if c.Seq%ackEvery == 0 {
			x.ack(ctx)
		}
	}
	return nil
}

func (x *session) write(c *mqtt.RPCChunk) error {
	if len(c.Data) > 0 {
		if _, err := x.w.Write(c.Data); err != nil {
			return fmt.Errorf("write log to the client: %w", err)
		}
		if f, ok := x.w.(http.Flusher); ok {
			f.Flush()
		}
	}
	switch {
	case c.EOF && c.Error != "":
		return mqtt.AgentStatus(c.Code, c.Error)
	case c.EOF:
		return errDone
	}
	return nil
}
