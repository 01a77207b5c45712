// Package broker is the server's side of MQTT: either the embedded broker
// (mochi-mqtt, embedded*.go) with bramble's identities and topic rules
// (acl.go) and its in-process Bus, or a Bus dialled to an external broker
// (mosquitto, external.go) with the ACL file mosquitto reads
// (mosquitto_acl.go); and the client credentials of viewers and servers.
// Nodes never link it: their side is mqtt/client, and what both sides
// agree on is package mqtt.
package broker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
)

// Config configures the embedded broker; zero values get defaults.
type Config struct {
	// Addr is the listen address, default ":8883".
	Addr string
	// TLS carries the broker's serving certificate and, in ClientCAs, the
	// cluster CA. Required. The broker works on a copy that insists on a
	// verified client certificate (RequireAndVerifyClientCert, TLS 1.2+).
	TLS *tls.Config
	// CertCheck, when set, must accept a node's certificate for the node
	// to connect (the server passes NodeCertRegistry.Check). Without it any
	// node certificate the CA signed is accepted.
	CertCheck CertCheck
	// ViewerCheck, when set, must accept a viewer's certificate (by the
	// viewer's name) for it to connect: the server passes its record of
	// issued viewer credentials, so that they can be revoked.
	ViewerCheck CertCheck
	Logger      *slog.Logger // default slog.Default()

	// Per-client bounds. A client over any of them is disconnected; it
	// reconnects and the server resends from its acknowledged revision.
	QueueBytes   int           // unsent bytes queued per client, default 8 MiB
	WriteTimeout time.Duration // one send to a client, default 10s
	MaxInflight  int           // unacknowledged QoS 1/2 messages per client, default 1024
	// MaxPendingPackets is mochi's per-client channel of packets waiting to
	// be encoded (a packet that finds it full is dropped), default 1024.
	MaxPendingPackets int
	// MaxPacketBytes bounds what a client may send in one packet, default 4 MiB.
	MaxPacketBytes int
	// HandshakeTimeout bounds TLS handshake and CONNECT, default 10s.
	HandshakeTimeout time.Duration
}

func (c *Config) setDefaults() {
	if c.Addr == "" {
		c.Addr = ":8883"
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	setDefault(&c.QueueBytes, 8<<20)
	setDefault(&c.WriteTimeout, 10*time.Second)
	setDefault(&c.MaxInflight, 1024)
	setDefault(&c.MaxPendingPackets, 1024)
	setDefault(&c.MaxPacketBytes, 4<<20)
	setDefault(&c.HandshakeTimeout, 10*time.Second)
}

func setDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Broker is the embedded MQTT broker (mochi-mqtt) with bramble's identities
// and topic rules. Create it with New, then Start and Stop it.
type Broker struct {
	cfg      Config
	tls      *tls.Config
	server   *mochi.Server
	hook     *authHook
	routes   *routes // who subscribes to each node topic, kept between publishes
	subID    atomic.Int64
	listener *tlsListener
	stopOnce sync.Once
	stopped  atomic.Bool
}

// New checks cfg and builds the broker; it does not listen yet.
func New(cfg Config) (*Broker, error) {
	cfg.setDefaults()
	tlsCfg, err := brokerTLS(cfg.TLS)
	if err != nil {
		return nil, err
	}
	server := mochi.New(&mochi.Options{
		InlineClient:           true,
		Capabilities:           capabilities(cfg),
		Logger:                 quietLogger(cfg.Logger),
		SysTopicResendInterval: 3600, // $SYS is for no one here; keep its ticker idle
	})
	hook := &authHook{server: server, check: cfg.CertCheck, viewerCheck: cfg.ViewerCheck, log: cfg.Logger, maxInflight: cfg.MaxInflight}
	if err := server.AddHook(hook, nil); err != nil {
		return nil, fmt.Errorf("mqtt broker: add auth hook: %w", err)
	}
	rts := &routes{topics: server.Topics}
	if err := server.AddHook(&routeHook{routes: rts}, nil); err != nil {
		return nil, fmt.Errorf("mqtt broker: add route hook: %w", err)
	}
	return &Broker{cfg: cfg, tls: tlsCfg, server: server, hook: hook, routes: rts}, nil
}

// brokerTLS validates the caller's TLS configuration and returns the copy
// the listener uses.
func brokerTLS(in *tls.Config) (*tls.Config, error) {
	switch {
	case in == nil:
		return nil, errors.New("mqtt broker: TLS: a configuration with the serving certificate and the cluster CA is required")
	case len(in.Certificates) == 0 && in.GetCertificate == nil && in.GetConfigForClient == nil:
		return nil, errors.New("mqtt broker: TLS: no serving certificate (Certificates or GetCertificate)")
	case in.ClientCAs == nil:
		return nil, errors.New("mqtt broker: TLS: ClientCAs is empty: the cluster CA is needed to verify client certificates")
	}
	out := mqttTLS(in)
	if get := in.GetConfigForClient; get != nil {
		out.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			c, err := get(hello)
			if err != nil || c == nil {
				return c, err
			}
			return mqttTLS(c), nil
		}
	}
	return out, nil
}

// mqttTLS is a copy of c that insists on a verified client certificate.
func mqttTLS(c *tls.Config) *tls.Config {
	out := c.Clone()
	out.ClientAuth = tls.RequireAndVerifyClientCert
	out.MinVersion = max(out.MinVersion, tls.VersionTLS12)
	out.NextProtos = nil // MQTT clients rarely offer ALPN; the API's h2 would only get in the way
	return out
}

// capabilities are mochi's limits for bramble: MQTT 3.1.1 and 5, no topic
// aliases (they would let a publish skip the topic ACL), no shared
// subscriptions, no forced expiry of retained presence messages, sessions
// of disconnected clients kept for an hour.
func capabilities(cfg Config) *mochi.Capabilities {
	c := mochi.NewDefaultServerCapabilities()
	c.MaximumInflight = uint16(min(cfg.MaxInflight, 65535))
	c.MaximumClientWritesPending = int32(cfg.MaxPendingPackets)
	c.MaximumPacketSize = uint32(cfg.MaxPacketBytes)
	c.MaximumMessageExpiryInterval = 0
	c.MaximumSessionExpiryInterval = 3600
	c.TopicAliasMaximum = 0
	c.SharedSubAvailable = 0
	c.MinimumProtocolVersion = 4
	return c
}

// Start listens on cfg.Addr and serves clients until Stop; ctx bounds only
// the start.
func (b *Broker) Start(ctx context.Context) error {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", b.cfg.Addr)
	if err != nil {
		return fmt.Errorf("mqtt broker: listen on %s: %w", b.cfg.Addr, err)
	}
	b.listener = &tlsListener{ln: ln, tls: b.tls, log: b.cfg.Logger, conns: map[*brokerConn]struct{}{},
		limits: connLimits{queueBytes: b.cfg.QueueBytes, writeTimeout: b.cfg.WriteTimeout, handshakeTimeout: b.cfg.HandshakeTimeout}}
	if err := b.server.AddListener(b.listener); err != nil {
		_ = ln.Close()
		return fmt.Errorf("mqtt broker: add listener: %w", err)
	}
	if err := b.server.Serve(); err != nil {
		return fmt.Errorf("mqtt broker: serve: %w", err)
	}
	b.cfg.Logger.Info("mqtt broker listening", "addr", ln.Addr().String())
	return nil
}

// Addr is the address the broker listens on (nil before Start).
func (b *Broker) Addr() net.Addr {
	if b.listener == nil {
		return nil
	}
	return b.listener.ln.Addr()
}

// Stop disconnects every client and stops the broker; the inline Bus stops
// working.
func (b *Broker) Stop() error {
	b.stopOnce.Do(func() {
		b.stopped.Store(true)
		_ = b.server.Close()
	})
	return nil
}

// Revoke drops the live session of node when its certificate no longer
// passes the CertCheck (every session of node when there is no CertCheck).
// A session opened with a newer certificate of the same node stays, so
// Revoke fits NodeCertRegistryConfig.OnInvalidate as it is. It does not
// block.
func (b *Broker) Revoke(node string) {
	cl, ok := b.server.Clients.Get(node)
	if !ok || cl.Closed() {
		return
	}
	id, ok := parseIdentityKey(string(cl.Properties.Username))
	if !ok || id.kind != kindNode || id.name != node {
		return
	}
	if cert := peerCert(cl); cert != nil && b.hook.checkCert(id, cert) == nil && b.cfg.CertCheck != nil {
		return
	}
	b.cfg.Logger.Info("mqtt session dropped: certificate revoked", "node", node)
	cl.Stop(packets.ErrNotAuthorized)
}

// quietLogger passes on only mochi's errors: its informational and warning
// lines come per connection or per message (a stuck client would log each
// message it misses); the hook and the listener log what matters.
func quietLogger(l *slog.Logger) *slog.Logger {
	return slog.New(levelFilter{h: l.Handler().WithAttrs([]slog.Attr{slog.String("component", "mochi")}), min: slog.LevelError})
}

type levelFilter struct {
	h   slog.Handler
	min slog.Level
}

func (f levelFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.min && f.h.Enabled(ctx, l)
}

func (f levelFilter) Handle(ctx context.Context, r slog.Record) error { return f.h.Handle(ctx, r) }

func (f levelFilter) WithAttrs(a []slog.Attr) slog.Handler {
	return levelFilter{h: f.h.WithAttrs(a), min: f.min}
}

func (f levelFilter) WithGroup(name string) slog.Handler {
	return levelFilter{h: f.h.WithGroup(name), min: f.min}
}
