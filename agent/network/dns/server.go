package dns

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	mdns "github.com/miekg/dns"
)

// Config is the server's optional settings; zero values get defaults.
type Config struct {
	// Addr is where it listens, UDP and TCP ("10.43.0.10:53"; tests use
	// "127.0.0.1:0", and both protocols then share the port UDP got).
	Addr string
	// Domain is the cluster domain (default cluster.local).
	Domain string
	// Upstreams are the resolvers ("ip:port") other names go to.
	Upstreams []string
	// Timeout bounds one question to one upstream (default 2s).
	Timeout time.Duration
	// CacheSize bounds the forwarded answers kept (default 10,000);
	// CacheMaxTTL how long any is kept (default 1h).
	CacheSize   int
	CacheMaxTTL time.Duration
	Log         *slog.Logger
}

func (c *Config) defaults() {
	if c.Domain == "" {
		c.Domain = "cluster.local"
	}
	if c.Timeout == 0 {
		c.Timeout = 2 * time.Second
	}
	if c.CacheSize == 0 {
		c.CacheSize = 10000
	}
	if c.CacheMaxTTL == 0 {
		c.CacheMaxTTL = time.Hour
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
}

// Server answers DNS over UDP and TCP from the current View and the
// Forwarder.
type Server struct {
	cfg     Config
	view    atomic.Pointer[View]
	fwd     *Forwarder
	servers []*mdns.Server
	addr    string
	wg      sync.WaitGroup
}

// New makes a server with an empty view of cfg.Domain.
func New(cfg Config) *Server {
	cfg.defaults()
	s := &Server{cfg: cfg}
	s.fwd = NewForwarder(cfg.Upstreams, cfg.Timeout, NewCache(cfg.CacheSize, cfg.CacheMaxTTL, nil))
	s.view.Store(Build(Snapshot{}, cfg.Domain, 1))
	return s
}

// Domain is the cluster domain the server answers for.
func (s *Server) Domain() string { return s.cfg.Domain }

// SetView swaps the answered view at once; queries in flight finish with
// the one they started with.
func (s *Server) SetView(v *View) { s.view.Store(v) }

// Upstreams are the resolvers other names are forwarded to.
func (s *Server) Upstreams() []string { return s.fwd.upstreams }

// Addr is the address the server listens on, after Start.
func (s *Server) Addr() string { return s.addr }

// Start listens on cfg.Addr (UDP, then TCP on the same port) and serves
// until Stop.
func (s *Server) Start(ctx context.Context) error {
	pc, ln, err := listen(s.cfg.Addr)
	if err != nil {
		return err
	}
	s.addr = pc.LocalAddr().String()
	s.servers = []*mdns.Server{
		{PacketConn: pc, Handler: s, UDPSize: mdns.DefaultMsgSize},
		{Listener: ln, Handler: s, ReadTimeout: 10 * time.Second},
	}
	for i, srv := range s.servers {
		if err := s.activate(srv); err != nil {
			s.servers = s.servers[:i]
			s.Stop()
			pc.Close()
			ln.Close()
			return fmt.Errorf("cluster dns: serve %s: %w", s.addr, err)
		}
	}
	return nil
}

// activate serves srv in the background and returns once it serves, or
// with its error when it stops before (miekg calls NotifyStartedFunc only
// when serving begins: waiting on that alone would wait forever).
func (s *Server) activate(srv *mdns.Server) error {
	started, failed := make(chan struct{}), make(chan error, 1)
	srv.NotifyStartedFunc = func() { close(started) }
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := srv.ActivateAndServe()
		select {
		case <-started: // it served: nobody waits for the error but the log
			if err != nil {
				s.cfg.Log.Error("cluster dns stopped", "addr", s.addr, "err", err)
			}
		default: // it never served: Start returns the error
			failed <- err
		}
	}()
	select {
	case <-started:
		return nil
	case err := <-failed:
		return err
	}
}

// Stop closes the listeners and waits for the serving goroutines.
func (s *Server) Stop() {
	for _, srv := range s.servers {
		_ = srv.Shutdown()
	}
	s.wg.Wait()
}

// listen opens UDP and TCP on addr. With port 0 the TCP port is the one
// UDP got; when that one is taken for TCP it tries other ports.
func listen(addr string) (net.PacketConn, net.Listener, error) {
	_, port, _ := net.SplitHostPort(addr)
	for try := 0; ; try++ {
		pc, err := net.ListenPacket("udp", addr)
		if err != nil {
			return nil, nil, fmt.Errorf("cluster dns: listen udp %s: %w", addr, err)
		}
		ln, err := net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			return pc, ln, nil
		}
		pc.Close()
		if port != "0" || try == 20 {
			return nil, nil, fmt.Errorf("cluster dns: listen tcp %s: %w", addr, err)
		}
	}
}
