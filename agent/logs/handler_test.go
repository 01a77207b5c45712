package logs

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/agent/runtime/logdriver"
	"github.com/bramble-edge/bramble/mqtt"
)

const testNode = "pi-1"

// recorder is a Publisher that keeps the chunks and, when autoAck is set,
// acks each one back to the handler the way the server does.
type recorder struct {
	h       *Handler
	autoAck bool
	mu      sync.Mutex
	chunks  []*mqtt.RPCChunk
	more    chan struct{}
}

func newRecorder(h *Handler, autoAck bool) *recorder {
	return &recorder{h: h, autoAck: autoAck, more: make(chan struct{}, 1)}
}

func (r *recorder) Publish(_ context.Context, topic string, qos byte, payload []byte) error {
	c, err := mqtt.DecodeRPCChunk(payload)
	if err != nil || qos != 1 || topic != mqtt.RPCResponseTopic(testNode, c.ID) {
		panic(fmt.Sprintf("bad publish on %s qos %d: %v", topic, qos, err))
	}
	r.mu.Lock()
	r.chunks = append(r.chunks, c)
	r.mu.Unlock()
	if r.autoAck {
		r.h.Handle(r, mqtt.RPCRequestTopic(testNode), request(c.ID, mqtt.RPCKindAck, c.Seq))
	}
	select {
	case r.more <- struct{}{}:
	default:
	}
	return nil
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.chunks)
}

func (r *recorder) text() (string, *mqtt.RPCChunk) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	var last *mqtt.RPCChunk
	for _, c := range r.chunks {
		b.Write(c.Data)
		last = c
	}
	return b.String(), last
}

// waitText waits until the text received satisfies ok.
func (r *recorder) waitText(t testing.TB, what string, ok func(string, *mqtt.RPCChunk) bool) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if s, last := r.text(); ok(s, last) {
			return s
		}
		select {
		case <-r.more:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			s, last := r.text()
			t.Fatalf("waited 10s for %s; got %q, last chunk %+v", what, s, last)
		}
	}
}

func request(id, kind string, seq int64) []byte {
	b, err := (&mqtt.RPCRequest{ID: id, Kind: kind, Seq: seq}).Encode()
	if err != nil {
		panic(err)
	}
	return b
}

func logsRequest(t testing.TB, id string, edit func(*mqtt.RPCRequest)) []byte {
	t.Helper()
	r := &mqtt.RPCRequest{ID: id, Kind: mqtt.RPCKindLogs, Namespace: "default", Pod: "p", UID: "uid-1", Container: "c"}
	if edit != nil {
		edit(r)
	}
	b, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newTestHandler(t testing.TB, cfg Config) *Handler {
	t.Helper()
	cfg.Node = testNode
	if cfg.PodLogDir == "" {
		cfg.PodLogDir = t.TempDir()
	}
	h := NewHandler(cfg)
	t.Cleanup(h.Close)
	return h
}

// logFile is where the runtime writes attempt's log of container c of pod uid-1.
func logFile(podLogDir string, attempt int) string {
	return filepath.Join(podLogDir, "default_p_uid-1", "c", fmt.Sprintf("%d.log", attempt))
}

func TestHandlerNotFound(t *testing.T) {
	h := newTestHandler(t, Config{})
	rec := newRecorder(h, true)
	h.Handle(rec, mqtt.RPCRequestTopic(testNode), logsRequest(t, "r1", nil))
	rec.waitText(t, "a 404", func(_ string, last *mqtt.RPCChunk) bool {
		return last != nil && last.EOF && last.Code == 404 && strings.Contains(last.Error, `container "c" in pod "p" not found`)
	})
}

func TestHandlerPrevious(t *testing.T) {
	h := newTestHandler(t, Config{})
	writeLog(t, logFile(h.cfg.PodLogDir, 0), cri(time.Now(), "first run"))
	writeLog(t, logFile(h.cfg.PodLogDir, 1), cri(time.Now(), "second run"))
	rec := newRecorder(h, true)
	h.Handle(rec, mqtt.RPCRequestTopic(testNode), logsRequest(t, "r1", func(r *mqtt.RPCRequest) { r.Previous = true }))
	got := rec.waitText(t, "eof", func(_ string, last *mqtt.RPCChunk) bool { return last != nil && last.EOF })
	if _, last := rec.text(); got != "first run\n" || last.Error != "" {
		t.Fatalf("got %q (error %q), want %q", got, last.Error, "first run\n")
	}
}

func TestHandlerWaitsForCredit(t *testing.T) {
	h := newTestHandler(t, Config{})
	line := strings.Repeat("x", 1000)
	var lines []string
	for range 400 { // 400 KB: about 13 chunks, more than the window
		lines = append(lines, cri(time.Now(), line))
	}
	writeLog(t, logFile(h.cfg.PodLogDir, 0), lines...)
	rec := newRecorder(h, false)
	h.Handle(rec, mqtt.RPCRequestTopic(testNode), logsRequest(t, "r1", nil))
	rec.waitText(t, "a full window", func(string, *mqtt.RPCChunk) bool { return rec.count() >= mqtt.RPCWindow })
	time.Sleep(100 * time.Millisecond) // a broken window would send more meanwhile
	if sent := rec.count(); sent != mqtt.RPCWindow {
		t.Fatalf("got %d chunks without an ack, want %d (the window)", sent, mqtt.RPCWindow)
	}
	h.Handle(rec, mqtt.RPCRequestTopic(testNode), request("r1", mqtt.RPCKindAck, 1000))
	got := rec.waitText(t, "eof", func(_ string, last *mqtt.RPCChunk) bool { return last != nil && last.EOF })
	if want := strings.Repeat(line+"\n", 400); got != want {
		t.Fatalf("got %d bytes, want %d", len(got), len(want))
	}
}

func TestHandlerFollowsAcrossRotationUntilCancelled(t *testing.T) {
	h := newTestHandler(t, Config{Poll: 20 * time.Millisecond})
	w, err := logdriver.OpenWriter(logFile(h.cfg.PodLogDir, 0), 300, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteLine("stdout", false, []byte("before"))
	rec := newRecorder(h, true)
	h.Handle(rec, mqtt.RPCRequestTopic(testNode), logsRequest(t, "r1", func(r *mqtt.RPCRequest) { r.Follow = true }))
	rec.waitText(t, "the first line", func(s string, _ *mqtt.RPCChunk) bool { return s == "before\n" })
	var want strings.Builder
	want.WriteString("before\n")
	for i := range 30 { // 30 lines of ~50 bytes: several rotations of 300 bytes
		w.WriteLine("stdout", i%3 == 0, fmt.Appendf(nil, "line %02d", i))
		if i%3 != 0 {
			want.WriteString(fmt.Sprintf("line %02d\n", i))
		} else {
			want.WriteString(fmt.Sprintf("line %02d", i))
		}
		time.Sleep(5 * time.Millisecond)
	}
	rec.waitText(t, "every line", func(s string, _ *mqtt.RPCChunk) bool { return len(s) >= want.Len() })
	if got, _ := rec.text(); got != want.String() {
		t.Fatalf("got %q, want %q", got, want.String())
	}
	h.Handle(rec, mqtt.RPCRequestTopic(testNode), request("r1", mqtt.RPCKindCancel, 0))
	waitGone(t, h, "r1")
}

func TestHandlerEndsIdleStream(t *testing.T) {
	h := newTestHandler(t, Config{Poll: 20 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	writeLog(t, logFile(h.cfg.PodLogDir, 0), cri(time.Now(), "hi"))
	rec := newRecorder(h, false)
	h.Handle(rec, mqtt.RPCRequestTopic(testNode), logsRequest(t, "r1", func(r *mqtt.RPCRequest) { r.Follow = true }))
	rec.waitText(t, "the line", func(s string, _ *mqtt.RPCChunk) bool { return s == "hi\n" })
	waitGone(t, h, "r1")
}

func waitGone(t testing.TB, h *Handler, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for h.stream(id) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("stream %s still running after 10s, want it ended", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
