package apiserver

import (
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/httpstream/spdy"
)

// upgradeTunneling serves kubectl 1.30+'s port-forward: a WebSocket whose
// binary messages carry a SPDY/3.1 connection, served as if it came
// directly.
func upgradeTunneling(w http.ResponseWriter, r *http.Request, onStream httpstream.NewStreamHandler) (httpstream.Connection, error) {
	if !offers(r, pfWSTunneling) {
		return nil, badRequest("unable to upgrade: the WebSocket subprotocols %q do not include %s",
			websocket.Subprotocols(r), pfWSTunneling)
	}
	up := websocket.Upgrader{Subprotocols: []string{pfWSTunneling}, ReadBufferSize: 32 << 10, WriteBufferSize: 32 << 10,
		CheckOrigin: func(*http.Request) bool { return true }}
	c, err := up.Upgrade(hijackable{w}, r, nil)
	if err != nil {
		return nil, nil // the upgrader answered
	}
	conn, err := spdy.NewServerConnection(&wsNetConn{c: c}, onStream)
	if err != nil {
		c.Close()
		return nil, nil
	}
	return conn, nil
}

// wsNetConn is a WebSocket as a byte stream: reads run through binary
// messages, each write is one message.
type wsNetConn struct {
	c   *websocket.Conn
	r   io.Reader
	wmu sync.Mutex
}

var _ net.Conn = (*wsNetConn)(nil)

func (w *wsNetConn) Read(p []byte) (int, error) {
	for {
		if w.r == nil {
			typ, r, err := w.c.NextReader()
			if err != nil {
				return 0, err
			}
			if typ != websocket.BinaryMessage {
				continue
			}
			w.r = r
		}
		n, err := w.r.Read(p)
		if err == io.EOF {
			w.r = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

func (w *wsNetConn) Write(p []byte) (int, error) {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if err := w.c.WriteMessage(websocket.BinaryMessage, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *wsNetConn) Close() error                       { return w.c.Close() }
func (w *wsNetConn) LocalAddr() net.Addr                { return w.c.LocalAddr() }
func (w *wsNetConn) RemoteAddr() net.Addr               { return w.c.RemoteAddr() }
func (w *wsNetConn) SetReadDeadline(t time.Time) error  { return w.c.SetReadDeadline(t) }
func (w *wsNetConn) SetWriteDeadline(t time.Time) error { return w.c.SetWriteDeadline(t) }
func (w *wsNetConn) SetDeadline(t time.Time) error {
	if err := w.c.SetReadDeadline(t); err != nil {
		return err
	}
	return w.c.SetWriteDeadline(t)
}
