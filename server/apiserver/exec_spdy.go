package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/httpstream/spdy"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/tunnel"
	"github.com/bramble-edge/bramble/server/streams"
)

// streamWait bounds the wait for the streams a SPDY client opens.
const streamWait = 30 * time.Second

// spdyExec is an exec upgraded to SPDY/3.1 with the v4.channel.k8s.io
// protocol: one SPDY stream per standard stream, named by its streamType
// header, and an error stream that gets the exit Status.
type spdyExec struct {
	conn   httpstream.Connection
	byType map[string]httpstream.Stream
	resize chan tunnel.Size
}

type newStream struct {
	s     httpstream.Stream
	reply <-chan struct{}
}

func upgradeExecSPDY(w http.ResponseWriter, r *http.Request, s *mqtt.StreamRequest, cancel context.CancelFunc) (execClient, error) {
	if r.Header.Get(httpstream.HeaderProtocolVersion) == "" {
		return nil, badRequest("unable to upgrade: %s is required", httpstream.HeaderProtocolVersion)
	}
	if _, err := httpstream.Handshake(r, w, []string{"v4.channel.k8s.io"}); err != nil {
		return nil, errAnswered
	}
	arrived := make(chan newStream, 8)
	conn := spdy.NewResponseUpgrader().UpgradeResponse(hijackable{w}, r, func(st httpstream.Stream, reply <-chan struct{}) error {
		select {
		case arrived <- newStream{st, reply}:
			return nil
		default:
			return fmt.Errorf("too many streams")
		}
	})
	if conn == nil {
		return nil, errAnswered // UpgradeResponse wrote the error
	}
	go func() { <-conn.CloseChan(); cancel() }()
	want := map[string]bool{"error": true, "stdin": s.Stdin, "stdout": s.Stdout, "stderr": s.Stderr, "resize": s.TTY}
	x := &spdyExec{conn: conn, byType: map[string]httpstream.Stream{}}
	if err := x.collect(arrived, want); err != nil {
		conn.Close()
		return nil, errAnswered
	}
	if rs := x.byType["resize"]; rs != nil {
		x.resize = make(chan tunnel.Size, 1)
		go decodeSizes(rs, x.resize)
	}
	return x, nil
}

// collect waits for every stream want names (and ignores the others).
func (x *spdyExec) collect(arrived <-chan newStream, want map[string]bool) error {
	n := 0
	for _, ok := range want {
		if ok {
			n++
		}
	}
	timeout := time.After(streamWait)
	for len(x.byType) < n {
		select {
		case ns := <-arrived:
			typ := ns.s.Headers().Get("streamType")
			if !want[typ] {
				ns.s.Reset()
				continue
			}
			<-ns.reply
			x.byType[typ] = ns.s
		case <-timeout:
			return fmt.Errorf("the client opened %d of %d streams within %s", len(x.byType), n, streamWait)
		}
	}
	return nil
}

// decodeSizes reads the resize stream's JSON sizes; the newest wins.
func decodeSizes(r io.Reader, out chan tunnel.Size) {
	dec := json.NewDecoder(r)
	for {
		var sz tunnel.Size
		if err := dec.Decode(&sz); err != nil {
			close(out)
			return
		}
		select {
		case out <- sz:
		default:
			select {
			case <-out:
			default:
			}
			out <- sz
		}
	}
}

func (x *spdyExec) io() streams.ExecIO {
	e := streams.ExecIO{}
	if st := x.byType["stdin"]; st != nil {
		e.Stdin = st
	}
	if st := x.byType["stdout"]; st != nil {
		e.Stdout = st
	}
	if st := x.byType["stderr"]; st != nil {
		e.Stderr = st
	}
	if x.resize != nil {
		e.Resize = x.resize
	}
	return e
}

func (x *spdyExec) finish(code int, err error, cmd []string) {
	for _, typ := range []string{"stdout", "stderr"} {
		if st := x.byType[typ]; st != nil {
			st.Close()
		}
	}
	es := x.byType["error"]
	b, _ := json.Marshal(exitStatus(code, err, cmd))
	_, _ = es.Write(b)
	es.Close()
}

func (x *spdyExec) close() { x.conn.Close() }
