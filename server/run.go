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

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/join"
	"github.com/bramble-edge/bramble/server/pki"
	"github.com/bramble-edge/bramble/server/publish"
)

// Run starts the server and blocks until ctx ends (SIGTERM/SIGINT), then
// shuts down: listeners close, watches end, the datastore flushes and closes.
func Run(ctx context.Context, cfg Config) error {
	cfg.setDefaults()
	if err := cfg.validate(); err != nil {
		return err
	}
	log := newLogger(cfg.LogLevel)
	start := time.Now()
	if err := os.MkdirAll(cfg.serverDir(), 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	unlock, err := lockDataDir(cfg.serverDir())
	if err != nil {
		return err
	}
	defer unlock()

	dbPath, _ := cfg.sqlitePath()
	store, err := datastore.OpenSQLite(ctx, dbPath, datastore.SQLiteConfig{
		Logger: log, CompactInterval: cfg.CompactInterval, CompactRetain: cfg.CompactRetain})
	if err != nil {
		return fmt.Errorf("open datastore %s: %w", dbPath, err)
	}
	defer store.Close()
	ca, err := pki.Load(filepath.Join(cfg.serverDir(), "tls"), pki.Config{SANs: cfg.TLSSANs, Logger: log})
	if err != nil {
		return fmt.Errorf("cluster certificates: %w", err)
	}
	side := &mqttSide{}
	defer side.close()
	handler, err := buildHandler(ctx, cfg, log, store, ca, side)
	if err != nil {
		return err
	}
	return serve(ctx, cfg, log, handler, ca, start)
}

// buildHandler wires the REST API, the join endpoints (served before
// authentication: the token in the body is the credential), node
// certificate revocation and the MQTT side. Background parts stop when ctx
// ends.
func buildHandler(ctx context.Context, cfg Config, log *slog.Logger, store datastore.Store, ca *pki.PKI, side *mqttSide) (http.Handler, error) {
	certs := join.NewNodeCertRegistry(store, join.NodeCertRegistryConfig{Logger: log, OnInvalidate: side.revoke})
	if err := certs.Start(ctx); err != nil {
		return nil, fmt.Errorf("node certificate registry: %w", err)
	}
	context.AfterFunc(ctx, certs.Stop)
	if err := side.start(ctx, cfg, log, ca, certs.Check); err != nil {
		return nil, err
	}
	pub := publish.New(publish.Config{Store: store, Bus: side.bus, Logger: log})
	if err := pub.Start(ctx); err != nil {
		return nil, fmt.Errorf("mqtt publisher: %w", err)
	}
	context.AfterFunc(ctx, pub.Stop)
	authn := auth.NewAuthenticator(ca.CAPool(), auth.NewSecretTokenLookup(secretLister(store), auth.SecretTokenLookupConfig{}),
		auth.WithNodeCertCheck(certs.Check))
	api, err := NewAPI(ctx, APIConfig{Store: store, Authn: authn, Authz: auth.NewAuthorizer(NewNodeGraph(store)), Log: log})
	if err != nil {
		return nil, err
	}
	if err := revokeDeletedNodes(ctx, log, store, certs); err != nil {
		return nil, err
	}
	tokens := join.NewTokenStore(store, join.TokenStoreConfig{Logger: log})
	if _, err := join.EnsureDefaultToken(ctx, tokens, ca, cfg.DataDir); err != nil {
		return nil, fmt.Errorf("default join token: %w", err)
	}
	jh, err := join.Handler(join.HandlerConfig{Tokens: tokens, CA: ca, Certs: certs, Logger: log,
		MQTTAddresses: func() []string { return side.addrs }})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	for _, p := range join.Paths {
		mux.Handle(p, jh)
	}
	mux.Handle("/", api)
	return mux, nil
}

// serve listens, writes the admin kubeconfig once the API answers, and
// shuts down cleanly when ctx ends.
func serve(ctx context.Context, cfg Config, log *slog.Logger, h http.Handler, ca *pki.PKI, start time.Time) error {
	addr := net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.HTTPSPort))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--https-listen-port %d: %w", cfg.HTTPSPort, err)
	}
	serveCtx, cancelServe := context.WithCancel(context.Background())
	defer cancelServe()
	srv := &http.Server{
		Handler:           h,
		TLSConfig:         ca.ServingTLSConfig(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return serveCtx },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeTLS(ln, "", "") }()
	if err := writeAdminKubeconfig(cfg, ca); err != nil {
		return err
	}
	log.Info("bramble server ready", "addr", ln.Addr().String(), "data-dir", cfg.DataDir,
		"kubeconfig", cfg.WriteKubeconfig, "startup", time.Since(start).Round(time.Millisecond))
	select {
	case <-ctx.Done():
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", addr, err)
	}
	log.Info("shutting down")
	cancelServe() // ends watches and log streams
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

func writeAdminKubeconfig(cfg Config, ca *pki.PKI) error {
	mode, _ := cfg.kubeconfigMode()
	host := cfg.BindAddress
	if host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	url := "https://" + net.JoinHostPort(host, strconv.Itoa(cfg.HTTPSPort))
	if err := ca.WriteKubeconfig(cfg.WriteKubeconfig, mode, url); err != nil {
		return fmt.Errorf("--write-kubeconfig %s: %w", cfg.WriteKubeconfig, err)
	}
	return nil
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}
