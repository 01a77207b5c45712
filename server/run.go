package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/metrics"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/scheduler"
	"github.com/bramble-edge/bramble/server/apiserver"
	"github.com/bramble-edge/bramble/server/encryption"
	"github.com/bramble-edge/bramble/server/nodestatus"
	"github.com/bramble-edge/bramble/server/pki"
	"github.com/bramble-edge/bramble/server/publish"
	"github.com/bramble-edge/bramble/server/registry"
	"github.com/bramble-edge/bramble/server/rlimit"
)

// Server is a running bramble server. Run uses it for `bramble server`;
// tests and benchmarks use Start to drive the very same parts in process.
type Server struct {
	// Store is the datastore every part uses: SQLite with Secrets
	// encrypted on their way in and decrypted on their way out.
	Store datastore.Store
	// SQLite is the store under the encryption: Secrets as stored.
	SQLite *datastore.SQLite
	// Secrets encrypts Secrets at rest (the wrapper Store is).
	Secrets   *encryption.Store
	PKI       *pki.PKI
	Cache     *informer.Cache // the process's one decoded-object cache
	Registry  *registry.Registry
	Client    *registry.Client // the registry for in-process writers
	API       *apiserver.API
	Broker    *broker.Broker // nil with an external broker
	Monitor   *nodestatus.Monitor
	Publisher *publish.Publisher
	Scheduler *scheduler.Scheduler // nil with --disable-scheduler
	// Controllers are the control loops; nil when none were configured or
	// with --disable-controllers.
	Controllers ControllerSet
	URL         string // https://host:port the API listens on
	Token       string // the default join token
	Kubeconfig  string // the admin kubeconfig written at start

	log            *slog.Logger
	srv            *http.Server
	serveErr       chan error
	cancel         context.CancelFunc // ends watches, log streams and background parts
	bg             context.Context    // the background parts' context
	schedCfg       scheduler.Config
	newControllers NewControllers
	usage          *monitorUsage // the metrics API's and the HPA's source
	stops          []func()      // undone in reverse order by Stop
}

// Run starts the server and blocks until ctx ends (SIGTERM/SIGINT), then
// shuts down: listeners close, watches end, the datastore flushes and closes.
func Run(ctx context.Context, cfg Config) error {
	s, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case err := <-s.serveErr:
		s.Stop()
		return fmt.Errorf("serve %s: %w", s.URL, err)
	}
	s.log.Info("shutting down")
	return s.Stop()
}

// Wait delivers the error that stopped the HTTPS listener, if it stops
// before Stop is called.
func (s *Server) Wait() <-chan error { return s.serveErr }

// Start brings every part up and returns once the API answers. Stop undoes
// it; a failed Start has undone what it did.
func Start(ctx context.Context, cfg Config) (_ *Server, err error) {
	cfg.setDefaults()
	api.Scheme() // built lazily for the agent's sake; the server builds them up front, as at init
	metrics.Server()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	begin := time.Now()
	s := &Server{log: cfg.Logger, Kubeconfig: cfg.WriteKubeconfig, serveErr: make(chan error, 1)}
	if s.log == nil {
		s.log = newLogger(cfg.LogLevel)
	}
	rlimit.RaiseLogged(s.log) // every agent holds a descriptor here
	defer func() {
		if err != nil {
			s.Stop() // s, not the named result: a failing return has set that to nil
		}
	}()
	if err := s.openState(ctx, cfg); err != nil {
		return nil, err
	}
	bg, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	handler, err := s.assemble(bg, cfg)
	if err != nil {
		return nil, err
	}
	if err := s.startManifests(bg, cfg); err != nil {
		return nil, err
	}
	if err := s.serve(bg, cfg, handler); err != nil {
		return nil, err
	}
	s.log.Info("bramble server ready", "listen", net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.HTTPSPort)),
		"mqtt", s.mqttListen(cfg), "api", s.URL, "data-dir", cfg.DataDir,
		"kubeconfig", cfg.WriteKubeconfig, "startup", time.Since(begin).Round(time.Millisecond))
	return s, nil
}

// Stop shuts the server down: the listener closes, watches end, background
// parts stop, and the datastore closes last.
func (s *Server) Stop() error {
	var err error
	if s.srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if s.cancel != nil {
			s.cancel()
		}
		if e := s.srv.Shutdown(sctx); e != nil && !errors.Is(e, context.DeadlineExceeded) {
			err = fmt.Errorf("shutdown: %w", e)
		}
		cancel()
		s.srv = nil
	}
	if s.cancel != nil {
		s.cancel()
	}
	for i := len(s.stops) - 1; i >= 0; i-- {
		s.stops[i]()
	}
	s.stops = nil
	return err
}

// openState takes the data dir's lock and opens the datastore and the PKI.
func (s *Server) openState(ctx context.Context, cfg Config) error {
	if err := os.MkdirAll(cfg.serverDir(), 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	unlock, err := lockDataDir(cfg.serverDir())
	if err != nil {
		return err
	}
	s.stops = append(s.stops, unlock)
	dbPath, _ := cfg.sqlitePath()
	if s.SQLite, err = datastore.OpenSQLite(ctx, dbPath, datastore.SQLiteConfig{
		Logger: s.log, CompactInterval: cfg.CompactInterval, CompactRetain: cfg.CompactRetain}); err != nil {
		return fmt.Errorf("open datastore %s: %w", dbPath, err)
	}
	s.stops = append(s.stops, func() { s.SQLite.Close() })
	if err := s.openSecrets(ctx, cfg); err != nil {
		return err
	}
	if s.PKI, err = pki.Load(filepath.Join(cfg.serverDir(), "tls"), pki.Config{SANs: append(cfg.TLSSANs, kubernetesSANs(cfg)...), Logger: s.log}); err != nil {
		return fmt.Errorf("cluster certificates: %w", err)
	}
	return nil
}

// serve listens and writes the admin kubeconfig once the API answers.
func (s *Server) serve(ctx context.Context, cfg Config, h http.Handler) error {
	addr := net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.HTTPSPort))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--https-listen-port %d: %w", cfg.HTTPSPort, err)
	}
	s.srv = &http.Server{
		Handler:           h,
		TLSConfig:         s.PKI.ServingTLSConfig(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	served := make(chan struct{})
	go func(srv *http.Server) {
		defer close(served)
		if err := srv.ServeTLS(ln, "", ""); !errors.Is(err, http.ErrServerClosed) {
			s.serveErr <- err
		}
	}(s.srv)
	s.stops = append(s.stops, func() { <-served }) // Stop shuts srv down first
	s.URL = "https://" + net.JoinHostPort(kubeconfigHost(cfg.BindAddress), strconv.Itoa(cfg.HTTPSPort))
	mode, _ := cfg.kubeconfigMode()
	if err := s.PKI.WriteKubeconfig(cfg.WriteKubeconfig, mode, s.URL); err != nil {
		return fmt.Errorf("--write-kubeconfig %s: %w", cfg.WriteKubeconfig, err)
	}
	return s.writeAdminKubeconfig(cfg)
}

// mqttListen names where the embedded broker listens, or the external one.
func (s *Server) mqttListen(cfg Config) string {
	if cfg.MQTTBroker != "" {
		return cfg.MQTTBroker
	}
	return net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.MQTTListenPort))
}

// kubeconfigHost is the address clients on this machine should dial.
func kubeconfigHost(bind string) string {
	if bind == "0.0.0.0" || bind == "::" {
		return "127.0.0.1"
	}
	return bind
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}
