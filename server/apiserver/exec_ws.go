package apiserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/tunnel"
	"github.com/bramble-edge/bramble/server/streams"
)

// The channel.k8s.io WebSocket protocols kubectl 1.30+ speaks for exec:
// each binary message is a channel byte and data. v5 adds channel 255,
// whose message [0] says the client's stdin ended.
const (
	wsV5        = "v5.channel.k8s.io"
	wsV4        = "v4.channel.k8s.io"
	wsStdin     = 0
	wsStdout    = 1
	wsStderr    = 2
	wsError     = 3
	wsResize    = 4
	wsClose     = 255
	wsReadLimit = 1 << 20
)

// wsExec is an exec upgraded to WebSocket.
type wsExec struct {
	c      *websocket.Conn
	stdinR *io.PipeReader
	stdinW *io.PipeWriter
	resize chan tunnel.Size
	s      *mqtt.StreamRequest
}

func upgradeExecWS(w http.ResponseWriter, r *http.Request, s *mqtt.StreamRequest, cancel context.CancelFunc) (execClient, error) {
	if !offers(r, wsV5, wsV4) {
		return nil, badRequest("unable to upgrade: the WebSocket subprotocols %q are not among %s or %s",
			websocket.Subprotocols(r), wsV5, wsV4)
	}
	up := websocket.Upgrader{Subprotocols: []string{wsV5, wsV4}, ReadBufferSize: 32 << 10, WriteBufferSize: 32 << 10,
		CheckOrigin: func(*http.Request) bool { return true }} // the client authenticated; browsers do not exec
	c, err := up.Upgrade(hijackable{w}, r, nil)
	if err != nil {
		return nil, errAnswered
	}
	c.SetReadLimit(wsReadLimit)
	x := &wsExec{c: c, resize: make(chan tunnel.Size, 1), s: s}
	x.stdinR, x.stdinW = io.Pipe()
	go func() {
		err := x.readClient()
		x.stdinW.CloseWithError(err)
		cancel() // the client went away (or closed): end the stream
	}()
	return x, nil
}

func offers(r *http.Request, protocols ...string) bool {
	for _, p := range websocket.Subprotocols(r) {
		for _, want := range protocols {
			if p == want {
				return true
			}
		}
	}
	return false
}

// readClient routes the client's messages: stdin (written at the
// process's pace: the pipe blocks), terminal sizes, stdin's end.
func (x *wsExec) readClient() error {
	v5 := x.c.Subprotocol() == wsV5
	for {
		typ, msg, err := x.c.ReadMessage()
		if err != nil {
			return err
		}
		if typ != websocket.BinaryMessage {
			continue
		}
		m := decodeWSMessage(msg, v5)
		switch {
		case m.stdin != nil:
			if _, err := x.stdinW.Write(m.stdin); err != nil {
				return err
			}
		case m.size != nil:
			offer(x.resize, *m.size)
		case m.closeStdin:
			x.stdinW.Close()
		}
	}
}

// wsMessage is one decoded client message; all fields empty: ignore it.
type wsMessage struct {
	stdin      []byte
	size       *tunnel.Size
	closeStdin bool
}

// decodeWSMessage reads a channel byte and its data: stdin bytes, a
// terminal size (JSON), or (v5) the close signal for stdin.
func decodeWSMessage(msg []byte, v5 bool) wsMessage {
	if len(msg) == 0 {
		return wsMessage{}
	}
	switch msg[0] {
	case wsStdin:
		if len(msg) > 1 {
			return wsMessage{stdin: msg[1:]}
		}
	case wsResize:
		var sz tunnel.Size
		if json.Unmarshal(msg[1:], &sz) == nil {
			return wsMessage{size: &sz}
		}
	case wsClose:
		return wsMessage{closeStdin: v5 && len(msg) > 1 && msg[1] == wsStdin}
	}
	return wsMessage{}
}

func offer(ch chan tunnel.Size, sz tunnel.Size) {
	select {
	case <-ch:
	default:
	}
	ch <- sz
}

func (x *wsExec) io() streams.ExecIO {
	e := streams.ExecIO{Resize: x.resize}
	if x.s.Stdin {
		e.Stdin = x.stdinR
	}
	if x.s.Stdout {
		e.Stdout = &wsChannel{c: x.c, ch: wsStdout}
	}
	if x.s.Stderr {
		e.Stderr = &wsChannel{c: x.c, ch: wsStderr}
	}
	return e
}

func (x *wsExec) finish(code int, err error, cmd []string) {
	b, _ := json.Marshal(exitStatus(code, err, cmd))
	_, _ = (&wsChannel{c: x.c, ch: wsError}).Write(b)
	_ = x.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
		time.Now().Add(time.Second))
}

func (x *wsExec) close() {
	x.stdinR.Close()
	x.c.Close()
}

// wsChannel writes one message per Write on its channel. The relay
// writes from one goroutine, then finish: no two writers at once.
type wsChannel struct {
	c  *websocket.Conn
	ch byte
}

func (w *wsChannel) Write(p []byte) (int, error) {
	mw, err := w.c.NextWriter(websocket.BinaryMessage)
	if err != nil {
		return 0, err
	}
	if _, err := mw.Write([]byte{w.ch}); err != nil {
		return 0, err
	}
	if _, err := mw.Write(p); err != nil {
		return 0, err
	}
	return len(p), mw.Close()
}
