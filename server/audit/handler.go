package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Sink takes one encoded event line (ending in a newline) at a time.
type Sink interface {
	WriteLine(line []byte) error
}

// Logger audits the requests of the handlers it wraps.
type Logger struct {
	policy *Policy
	sink   Sink
	log    *slog.Logger
	now    func() time.Time
	bodies bool        // some rule may log bodies
	failed atomic.Bool // the last write failed (logged once per outage)
}

// NewLogger audits into sink by policy (DefaultPolicy when nil); log gets
// write failures, now the clock (time.Now when nil).
func NewLogger(policy *Policy, sink Sink, log *slog.Logger, now func() time.Time) *Logger {
	if policy == nil {
		policy = DefaultPolicy()
	}
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &Logger{policy: policy, sink: sink, log: log, now: now, bodies: policy.logsBodies()}
}

// Handler wraps next: each request gets an audit record in its context
// (SetUser, SetRequest and Annotate fill it) and its events are written as
// it passes the stages the policy keeps.
func (l *Logger) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &record{l: l, ev: newEvent(r, l.now()), attrs: Attributes{Path: r.URL.Path}}
		w.Header().Set("Audit-Id", rec.ev.AuditID)
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, rec))
		if l.bodies && r.Body != nil && r.Body != http.NoBody {
			rec.reqBody.start(r.Header.Get("Content-Type"))
			r.Body = &bodyReader{ReadCloser: r.Body, rec: rec}
		}
		aw := &responseWriter{ResponseWriter: w, rec: rec, bodies: l.bodies}
		defer func() { rec.complete(aw.statusCode()) }()
		next.ServeHTTP(aw, r)
	})
}

// write encodes ev as one line into the sink. A failure is logged when an
// outage starts and when it ends; the request goes on.
func (l *Logger) write(ev *Event) {
	line, err := json.Marshal(ev)
	if err == nil {
		err = l.sink.WriteLine(append(line, '\n'))
	}
	switch {
	case err != nil && !l.failed.Swap(true):
		l.log.Error("audit log: write failed; events are lost until it recovers", "err", err)
	case err == nil && l.failed.Load() && l.failed.Swap(false):
		l.log.Info("audit log: writing again")
	}
}

// responseWriter sees the answer start (ResponseStarted), its code, and,
// at RequestResponse level, its JSON body.
type responseWriter struct {
	http.ResponseWriter
	rec    *record
	code   int
	bodies bool
}

func (w *responseWriter) WriteHeader(code int) {
	if w.code == 0 && code >= 200 {
		w.code = code
		w.begin()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
		w.begin()
	}
	if w.bodies && w.rec.level() == LevelRequestResponse {
		w.rec.mu.Lock()
		w.rec.respBody.add(p)
		w.rec.mu.Unlock()
	}
	return w.ResponseWriter.Write(p)
}

// begin notes the answer's start, arming the body copy for a plain JSON
// answer (not a compressed or streamed one).
func (w *responseWriter) begin() {
	h := w.Header()
	if w.bodies && h.Get("Content-Encoding") == "" {
		w.rec.mu.Lock()
		if !w.rec.longRunning {
			w.rec.respBody.start(h.Get("Content-Type"))
		}
		w.rec.mu.Unlock()
	}
	w.rec.responseStarted(w.code)
}

// Flush passes on a flush (watches, followed logs); the answer has begun.
func (w *responseWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
		w.begin()
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack hands the connection to an upgraded protocol (exec, attach,
// port-forward streams): the answer has begun with 101.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("audit: the response writer cannot be hijacked")
	}
	if w.code == 0 {
		w.code = http.StatusSwitchingProtocols
		w.begin()
	}
	return hj.Hijack()
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *responseWriter) statusCode() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}
