package streams

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// Dialer opens tunnels to the server: TLS with the node's certificate, then
// an HTTP/1.1 upgrade of the request's tunnel path.
type Dialer struct {
	// ServerURL is the server's https URL (the one the node joined).
	ServerURL string
	// TLS returns the client configuration (it follows certificate renewals).
	TLS func() *tls.Config
	// Timeout bounds the dial and the upgrade (default 10s).
	Timeout time.Duration
}

// Dial opens the tunnel at path.
func (d *Dialer) Dial(ctx context.Context, path string) (net.Conn, error) {
	u, err := url.Parse(d.ServerURL)
	if err != nil {
		return nil, fmt.Errorf("server URL %q: %w", d.ServerURL, err)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}
	timeout := d.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cfg := d.TLS().Clone()
	cfg.NextProtos = []string{"http/1.1"}
	td := tls.Dialer{Config: cfg}
	conn, err := td.DialContext(dctx, "tcp", host)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", host, err)
	}
	c, err := upgrade(conn, u.Host, path, time.Now().Add(timeout))
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("open tunnel at %s: %w", d.ServerURL, err)
	}
	return c, nil
}

func upgrade(conn net.Conn, host, path string, deadline time.Time) (net.Conn, error) {
	_ = conn.SetDeadline(deadline)
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: %s\r\n\r\n",
		path, host, mqtt.TunnelProtocol)
	if _, err := conn.Write([]byte(req)); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(conn, 4<<10)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		return nil, fmt.Errorf("the server answered %s", resp.Status)
	}
	_ = conn.SetDeadline(time.Time{})
	return &bufferedConn{Conn: conn, r: br}, nil
}

// bufferedConn reads through the reader that read the upgrade's answer.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
