package agent

import (
	"context"
	"time"
)

// check measures once and logs what is wrong; it reports whether the clock
// is fine.
func (w *clockWatch) check(ctx context.Context) bool {
	cert, err := w.cert()
	if err != nil {
		return true
	}
	server, err := w.serverDate(ctx)
	if err != nil {
		w.log.Debug("cannot read the server's time", "err", err)
	}
	now := w.now()
	if !server.IsZero() {
		off := server.Sub(now)
		if off.Abs() < 3*time.Second { // Date has whole seconds
			off = 0
		}
		w.offset.Store(int64(off))
	}
	msg := clockProblem(now, cert, server)
	switch {
	case msg != "":
		w.log.Warn(msg)
		w.bad = true
	case w.bad:
		w.log.Info("this machine's clock is right again", "now", now.UTC())
		w.bad = false
	}
	return msg == ""
}

// run checks at start, then every 5 minutes, or every 15 seconds while the
// clock is off, until ctx ends.
func (w *clockWatch) run(ctx context.Context) {
	defer w.http.CloseIdleConnections()
	for {
		wait := 5 * time.Minute
		if !w.check(ctx) {
			wait = 15 * time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
