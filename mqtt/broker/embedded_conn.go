package broker

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"
)

// errSlowConsumer ends a connection whose unsent bytes passed the limit.
var errSlowConsumer = errors.New("mqtt client too slow: outbound queue full")

// keepBuffer is the largest send buffer a connection keeps between sends;
// with thousands of mostly idle agents connected, this is most of what an
// idle connection costs beyond TLS and mochi's own state.
const keepBuffer = 8 << 10

// closeFlush bounds the time spent flushing a closing connection.
const closeFlush = 2 * time.Second

// brokerConn is a client connection as the embedded broker sees it. Writes
// never block: mochi writes packets while holding the client's lock, which
// its publishers also take (for packet IDs), so one peer that stops reading
// would otherwise stall every publisher that has a message for it. Instead
// Write appends to a bounded queue that one goroutine per connection sends
// with a deadline; a queue over its limit, or a send that times out, closes
// the connection (the client reconnects and the server resends what it
// missed, from the node's acknowledged revision).
type brokerConn struct {
	*tls.Conn
	peer         *x509.Certificate // the verified client certificate
	limit        int               // most bytes queued
	writeTimeout time.Duration
	stopped      func() // called once sendLoop has closed the connection
	log          *slog.Logger
	entered      func() // called once, at the first read
	enterOnce    sync.Once

	mu      sync.Mutex
	wake    *sync.Cond
	queue   []byte
	closing bool  // Close was called: flush, then close
	err     error // the connection failed or overflowed: close now
}

func newBrokerConn(c *tls.Conn, peer *x509.Certificate, limits connLimits, log *slog.Logger, stopped func()) *brokerConn {
	bc := &brokerConn{Conn: c, peer: peer, limit: limits.queueBytes, writeTimeout: limits.writeTimeout,
		log: log, stopped: stopped}
	bc.wake = sync.NewCond(&bc.mu)
	go func() {
		bc.sendLoop()
		if bc.stopped != nil {
			bc.stopped()
		}
	}()
	return bc
}

// Read reads from the peer; the first read tells the listener that the
// broker has taken the connection.
func (c *brokerConn) Read(p []byte) (int, error) {
	c.enter()
	return c.Conn.Read(p)
}

func (c *brokerConn) enter() {
	c.enterOnce.Do(func() {
		if c.entered != nil {
			c.entered()
		}
	})
}

// Write queues p for sending. It fails, and ends the connection, when the
// queue would pass its limit.
func (c *brokerConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.err != nil || c.closing {
		c.mu.Unlock()
		return 0, net.ErrClosed
	}
	if len(c.queue)+len(p) > c.limit {
		c.mu.Unlock()
		c.fail(errSlowConsumer)
		return 0, errSlowConsumer
	}
	c.queue = append(c.queue, p...)
	c.wake.Signal()
	c.mu.Unlock()
	return len(p), nil
}

// sendLoop sends queued bytes until the connection fails or is closed.
func (c *brokerConn) sendLoop() {
	var buf []byte
	for {
		c.mu.Lock()
		for len(c.queue) == 0 && !c.closing && c.err == nil {
			c.wake.Wait()
		}
		failed, closing := c.err != nil, c.closing
		buf, c.queue = c.queue, buf[:0]
		c.mu.Unlock()
		if failed || (closing && len(buf) == 0) {
			_ = c.Conn.Close()
			return
		}
		timeout := c.writeTimeout
		if closing {
			timeout = min(timeout, closeFlush)
		}
		_ = c.Conn.SetWriteDeadline(time.Now().Add(timeout))
		if _, err := c.Conn.Write(buf); err != nil {
			c.fail(err)
			_ = c.Conn.Close()
			return
		}
		if cap(buf) > keepBuffer { // do not hold a burst's buffer for the connection's life
			buf = nil
		}
	}
}

// fail ends the connection at once, dropping what is queued. Closing the
// TLS connection also ends a send blocked on the peer and the broker's read
// of this connection.
func (c *brokerConn) fail(err error) {
	c.mu.Lock()
	first := c.err == nil && !c.closing
	if c.err == nil {
		c.err = err
	}
	c.wake.Signal()
	c.mu.Unlock()
	_ = c.Conn.Close()
	if !first {
		return
	}
	var ne net.Error
	if errors.Is(err, errSlowConsumer) || (errors.As(err, &ne) && ne.Timeout()) {
		c.log.Warn("mqtt client cut off: not reading fast enough", "client", c.peer.Subject.CommonName,
			"remote", c.RemoteAddr().String(), "err", err)
	}
}

// Close flushes what is queued (for at most closeFlush) and then closes;
// it returns at once. The broker's reader is released right away.
func (c *brokerConn) Close() error {
	c.mu.Lock()
	if c.closing || c.err != nil {
		c.mu.Unlock()
		return nil
	}
	c.closing = true
	c.wake.Signal()
	c.mu.Unlock()
	_ = c.Conn.SetReadDeadline(time.Now())
	_ = c.Conn.SetWriteDeadline(time.Now().Add(closeFlush))
	return nil
}

// SetDeadline is called by the broker with its keep-alive deadline; it
// applies to reads only, since writes have their own timeout.
func (c *brokerConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing || c.err != nil {
		return nil // keep the reader released
	}
	return c.Conn.SetReadDeadline(t)
}

// SetWriteDeadline is ignored: sendLoop sets the write deadline per send.
func (c *brokerConn) SetWriteDeadline(time.Time) error { return nil }
