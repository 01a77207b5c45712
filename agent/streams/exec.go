package streams

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/bramble-edge/bramble/agent/runtime"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/tunnel"
)

// exec runs the command (or, for attach, joins the container's own
// process) with the tunnel as its streams; the last frame carries the
// exit code (attach: 0 when the client detaches or the output ends).
func (h *Handler) exec(ctx context.Context, cancel context.CancelFunc, conn net.Conn, fw *tunnel.Writer, kind string, s *mqtt.StreamRequest) error {
	id, err := h.streamTarget(ctx, kind, s)
	if err != nil {
		return fw.WriteJSON(tunnel.Status, tunnel.Result{Error: err.msg, Code: err.code})
	}
	if err := fw.WriteJSON(tunnel.Status, tunnel.Result{}); err != nil {
		return err
	}
	streams, stdinR, stdinW := clientStreams(fw, s)
	resize := make(chan runtime.TermSize, 1)
	streams.Resize = resize
	go func() {
		// readClient returns only when the connection ends: the server
		// went away (or is done), so the process is killed if it still
		// runs (attach: the client detaches).
		stdinW.CloseWithError(readClient(conn, stdinW, resize))
		cancel()
	}()
	var code int
	var xerr error
	if kind == mqtt.RPCKindAttach {
		xerr = h.cfg.Runtime.AttachStream(ctx, id, streams)
	} else {
		code, xerr = h.cfg.Runtime.ExecStream(ctx, id, s.Command, streams)
	}
	stdinR.Close()
	if xerr != nil {
		return fw.WriteJSON(tunnel.Status, tunnel.Result{Error: xerr.Error(), Code: http.StatusInternalServerError})
	}
	return fw.WriteJSON(tunnel.Status, tunnel.Result{ExitCode: code})
}

// streamTarget finds the container; attach needs one started with a
// stdin or terminal the agent holds.
func (h *Handler) streamTarget(ctx context.Context, kind string, s *mqtt.StreamRequest) (string, *refusal) {
	id, _, err := h.container(ctx, s)
	if err == nil && kind == mqtt.RPCKindAttach && !h.cfg.Runtime.HasConsole(id) {
		err = &refusal{http.StatusBadRequest, fmt.Sprintf("cannot attach to container %q of pod %s/%s: it was not "+
			"started with stdin: true or tty: true", s.Container, s.Namespace, s.Pod)}
	}
	return id, err
}

// clientStreams are the process's streams the request asks for, over the
// tunnel; the pipe carries the client's stdin.
func clientStreams(fw *tunnel.Writer, s *mqtt.StreamRequest) (runtime.ExecStreams, *io.PipeReader, *io.PipeWriter) {
	streams := runtime.ExecStreams{TTY: s.TTY}
	stdinR, stdinW := io.Pipe()
	if s.Stdin {
		streams.Stdin = stdinR
	}
	if s.Stdout {
		streams.Stdout = &frameWriter{fw: fw, ch: tunnel.Stdout}
	}
	if s.Stderr && !s.TTY {
		streams.Stderr = &frameWriter{fw: fw, ch: tunnel.Stderr}
	}
	return streams, stdinR, stdinW
}

// readClient feeds the server's frames to the process until the
// connection ends: stdin bytes (blocking: the process's pace is the
// client's), stdin's end, terminal sizes (the newest wins).
func readClient(conn net.Conn, stdin *io.PipeWriter, resize chan runtime.TermSize) error {
	fr := tunnel.NewReader(conn)
	dead := false // the process is gone or closed its stdin: drop the rest
	for {
		ch, p, err := fr.Read()
		if err != nil {
			return err
		}
		switch ch {
		case tunnel.Stdin:
			if !dead {
				_, err := stdin.Write(p)
				dead = err != nil
			}
		case tunnel.CloseStdin:
			stdin.Close()
		case tunnel.Resize:
			if sz, err := tunnel.DecodeSize(p); err == nil {
				offerSize(resize, runtime.TermSize{Width: sz.Width, Height: sz.Height})
			}
		}
	}
}

func offerSize(ch chan runtime.TermSize, sz runtime.TermSize) {
	for {
		select {
		case ch <- sz:
			return
		default:
		}
		select {
		case <-ch: // drop the older size
		default:
		}
	}
}

// frameWriter sends what it is given as frames on one channel.
type frameWriter struct {
	fw *tunnel.Writer
	ch tunnel.Channel
}

func (w *frameWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), tunnel.MaxData)
		if err := w.fw.Write(w.ch, p[:k]); err != nil {
			return n, err
		}
		n, p = n+k, p[k:]
	}
	return n, nil
}

// container finds the running container s names (any running one of the
// pod when s names none) and its process id.
func (h *Handler) container(ctx context.Context, s *mqtt.StreamRequest) (string, uint32, *refusal) {
	list, err := h.cfg.Runtime.ListContainers(ctx)
	if err != nil {
		return "", 0, &refusal{http.StatusInternalServerError, fmt.Sprintf("list containers: %v", err)}
	}
	for _, c := range list {
		if c.PodUID == s.UID && (s.Container == "" || c.Name == s.Container) && c.State == runtime.StateRunning {
			return c.ID, c.Pid, nil
		}
	}
	what := fmt.Sprintf("container %q of pod %s/%s", s.Container, s.Namespace, s.Pod)
	if s.Container == "" {
		what = fmt.Sprintf("a running container of pod %s/%s", s.Namespace, s.Pod)
	}
	return "", 0, &refusal{http.StatusNotFound, fmt.Sprintf("%s is not running on node %q", what, h.cfg.Node)}
}
