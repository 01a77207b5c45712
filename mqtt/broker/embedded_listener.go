package broker

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/mochi-mqtt/server/v2/listeners"
)

// tlsListener is the broker's one network listener. It completes the TLS
// handshake (client certificate required and verified) before the broker
// sees the connection, bounds the time to handshake and to send CONNECT,
// and hands the broker brokerConns, whose writes never block.
type tlsListener struct {
	ln     net.Listener
	tls    *tls.Config
	limits connLimits
	log    *slog.Logger

	mu      sync.Mutex
	closed  bool
	conns   map[*brokerConn]struct{} // until their send loop ends
	entered sync.WaitGroup           // connections passed to the broker, until its first read
	loops   sync.WaitGroup           // send loops running
}

// connLimits are the per-connection bounds of Config.
type connLimits struct {
	queueBytes       int
	writeTimeout     time.Duration
	handshakeTimeout time.Duration
}

var _ listeners.Listener = (*tlsListener)(nil)

const listenerID = "bramble-tls"

func (l *tlsListener) ID() string              { return listenerID }
func (l *tlsListener) Address() string         { return l.ln.Addr().String() }
func (l *tlsListener) Protocol() string        { return "mqtts" }
func (l *tlsListener) Init(*slog.Logger) error { return nil }

// Serve accepts connections until Close.
func (l *tlsListener) Serve(establish listeners.EstablishFn) {
	for {
		raw, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			l.log.Warn("mqtt accept failed", "err", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		go l.handle(raw, establish)
	}
}

// handle runs one connection: handshake, then the broker's session.
func (l *tlsListener) handle(raw net.Conn, establish listeners.EstablishFn) {
	tc := tls.Server(raw, l.tls)
	ctx, cancel := context.WithTimeout(context.Background(), l.limits.handshakeTimeout)
	err := tc.HandshakeContext(ctx)
	cancel()
	if err != nil {
		l.log.Info("mqtt connection refused: TLS handshake", "remote", raw.RemoteAddr().String(), "err", err)
		_ = raw.Close()
		return
	}
	chains := tc.ConnectionState().VerifiedChains
	if len(chains) == 0 || len(chains[0]) == 0 { // RequireAndVerifyClientCert makes this unreachable
		_ = tc.Close()
		return
	}
	// CONNECT must follow within the handshake timeout; the broker then sets
	// the keep-alive deadline.
	_ = tc.SetReadDeadline(time.Now().Add(l.limits.handshakeTimeout))
	c := l.track(tc, chains[0][0])
	if c == nil {
		return
	}
	err = establish(listenerID, c)
	c.enter() // in case the broker never read
	if err != nil {
		l.log.Debug("mqtt session ended", "remote", raw.RemoteAddr().String(), "err", err)
	}
}

// track registers a new connection, unless the listener is closing. The
// connection counts in entered until the broker first reads it: by then
// the broker has counted it among its clients, so Close can wait for it.
// It stays tracked, and in loops, until its send loop has closed it (a
// closing connection flushes for a while after the broker let it go).
func (l *tlsListener) track(tc *tls.Conn, peer *x509.Certificate) *brokerConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		_ = tc.Close()
		return nil
	}
	var c *brokerConn
	l.loops.Add(1)
	c = newBrokerConn(tc, peer, l.limits, l.log, func() { l.untrack(c); l.loops.Done() })
	l.entered.Add(1)
	c.entered = l.entered.Done
	l.conns[c] = struct{}{}
	return c
}

func (l *tlsListener) untrack(c *brokerConn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// Close stops accepting and ends every connection; each session then ends
// as on a lost connection (its Last Will is published). mochi's own closer
// (closeListenerClients) is not called: its Clients.GetByListener takes the
// clients' read lock twice, and a session ending or starting in between
// (a write lock waiting) deadlocks the broker's shutdown (mochi v2.7.9).
// Every client of this listener came through track, so ending the tracked
// connections disconnects them all; Close returns once their send loops,
// flushing ones included, have ended.
func (l *tlsListener) Close(listeners.CloseFn) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	l.mu.Unlock()
	_ = l.ln.Close()
	l.entered.Wait()
	l.mu.Lock()
	rest := make([]*brokerConn, 0, len(l.conns))
	for c := range l.conns {
		rest = append(rest, c)
	}
	l.mu.Unlock()
	for _, c := range rest {
		c.fail(net.ErrClosed)
	}
	l.loops.Wait() // no send loop outlives the broker
}
