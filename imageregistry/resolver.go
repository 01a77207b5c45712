package imageregistry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/containerd/containerd/remotes"
	"github.com/containerd/containerd/remotes/docker"
	"github.com/containerd/log"
	"github.com/distribution/reference"
	"github.com/sirupsen/logrus"
)

// NormalizeRef turns a reference as written in a pod ("busybox") into
// the name images are stored under ("docker.io/library/busybox:latest").
func NormalizeRef(ref string) (string, error) {
	named, err := reference.ParseDockerRef(ref)
	if err != nil {
		return "", fmt.Errorf("image reference %q: %w", ref, err)
	}
	return named.String(), nil
}

// NewResolver is what a pull or a platform lookup resolves and fetches
// through: the mirrors of cfg in order, then the registry itself, each
// with its TLS settings and the login of creds (a pod's pull secrets) or
// else of cfg. Call release when done, to close idle connections.
func NewResolver(cfg Config, creds Credentials) (resolver remotes.Resolver, release func()) {
	hosts := &registryHosts{regs: cfg, creds: creds}
	return docker.NewResolver(docker.ResolverOptions{Hosts: hosts.lookup}), hosts.closeIdle
}

// registryHosts turns the registries config into the endpoints containerd's
// resolver tries for one pull: the mirrors in order, then the registry.
type registryHosts struct {
	regs       Config
	creds      Credentials
	transports []*http.Transport
}

func (h *registryHosts) lookup(host string) ([]docker.RegistryHost, error) {
	mirror, ok := h.regs.Mirrors[host]
	if !ok {
		mirror = h.regs.Mirrors["*"]
	}
	var out []docker.RegistryHost
	for _, ep := range mirror.Endpoints {
		u, err := parseEndpoint(ep)
		if err != nil {
			return nil, fmt.Errorf("mirror of %s: %w", host, err)
		}
		rh, err := h.registryHost(u, false)
		if err != nil {
			return nil, err
		}
		out = append(out, rh)
	}
	def, _ := docker.DefaultHost(host)
	for _, rh := range out {
		if rh.Host == def && rh.Scheme == "https" {
			return out, nil
		}
	}
	rh, err := h.registryHost(&url.URL{Scheme: "https", Host: def}, docker.IsLocalhost(def))
	if err != nil {
		return nil, err
	}
	return append(out, rh), nil
}

// registryHost builds one endpoint with its TLS settings and login. A
// registry on localhost may answer in plain HTTP, as Docker allows.
func (h *registryHosts) registryHost(u *url.URL, httpFallback bool) (docker.RegistryHost, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tlsCfg, err := h.regs.tlsConfig(u.Host)
	if err != nil {
		return docker.RegistryHost{}, err
	}
	tr.TLSClientConfig = tlsCfg
	h.transports = append(h.transports, tr)
	client := &http.Client{Transport: tr}
	if httpFallback {
		client.Transport = docker.NewHTTPFallback(tr)
	}
	path := strings.TrimSuffix(u.Path, "/")
	if !strings.HasSuffix(path, "/v2") {
		path += "/v2"
	}
	creds := func(host string) (string, string, error) { return h.regs.lookupAuth(h.creds, host) }
	return docker.RegistryHost{
		Client:       client,
		Authorizer:   docker.NewDockerAuthorizer(docker.WithAuthClient(client), docker.WithAuthCreds(creds)),
		Host:         u.Host,
		Scheme:       u.Scheme,
		Path:         path,
		Capabilities: docker.HostCapabilityPull | docker.HostCapabilityResolve,
	}, nil
}

func (h *registryHosts) closeIdle() {
	for _, tr := range h.transports {
		tr.CloseIdleConnections()
	}
}

// tlsConfig reads the configs[host].tls files, if any.
func (r Config) tlsConfig(host string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	rc, ok := r.Configs[host]
	if !ok || rc.TLS == nil {
		return cfg, nil
	}
	cfg.InsecureSkipVerify = rc.TLS.InsecureSkipVerify
	if rc.TLS.CAFile != "" {
		pem, err := os.ReadFile(rc.TLS.CAFile)
		if err != nil {
			return nil, fmt.Errorf("registry %s: read ca_file: %w", host, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("registry %s: ca_file %s holds no PEM certificate", host, rc.TLS.CAFile)
		}
		cfg.RootCAs = pool
	}
	if rc.TLS.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(rc.TLS.CertFile, rc.TLS.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("registry %s: load client certificate: %w", host, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// WithClientLog routes what containerd's client library logs (through
// logrus, e.g. "trying next host" while resolving) into our slog logger,
// one level down: its info is our debug.
func WithClientLog(ctx context.Context, logger *slog.Logger) context.Context {
	l := logrus.New()
	l.Out = io.Discard
	l.SetLevel(logrus.InfoLevel)
	l.AddHook(slogHook{logger})
	return log.WithLogger(ctx, logrus.NewEntry(l))
}

type slogHook struct{ log *slog.Logger }

func (slogHook) Levels() []logrus.Level { return logrus.AllLevels }

func (h slogHook) Fire(e *logrus.Entry) error {
	level := slog.LevelDebug
	switch {
	case e.Level <= logrus.ErrorLevel:
		level = slog.LevelError
	case e.Level == logrus.WarnLevel:
		level = slog.LevelWarn
	}
	attrs := make([]any, 0, 2*len(e.Data)+2)
	attrs = append(attrs, "source", "containerd-client")
	for k, v := range e.Data {
		attrs = append(attrs, k, v)
	}
	h.log.Log(context.Background(), level, e.Message, attrs...)
	return nil
}
