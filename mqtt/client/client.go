// Package client is the node side of bramble's MQTT delivery, shared by
// the agent and the hollow agents: a paho client with the node's
// certificate that receives the node's desired stream, applies it in
// order through an Applier, acknowledges what it applied, notices gaps and
// relists by REST with the same certificate, in one call that resumes from
// the revision it holds. docs/MQTT-DELIVERY.md describes the protocol.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
)

// Applier is what the client drives: the agent's desired-state cache, a
// hollow agent, or Memory.
type Applier interface {
	// Apply applies one Event's changes (ADDED and MODIFIED are upserts;
	// DELETED of an unknown object is a no-op). Events arrive with strictly
	// increasing Rev; an error makes the client resync.
	Apply(ctx context.Context, ev mqtt.Event) error
	// Resync replaces the whole view with state.
	Resync(ctx context.Context, state State) error
}

// BatchApplier is an Applier that can apply several Events at once, in
// order, and make them durable together (the agent: one fsync for all).
// The client hands it the Events already queued that follow on one from
// another, and acknowledges the last once it returns.
type BatchApplier interface {
	Applier
	ApplyBatch(ctx context.Context, evs []mqtt.Event) error
}

// State is a node's whole view read by REST, every Objects entry ADDED:
// from the view endpoint, exactly as of Rev; from an older server, its
// pods as of Rev and the ConfigMaps and Secrets they reference read just
// after (so possibly newer).
type State struct {
	Rev     int64
	Objects []mqtt.Change
}

// Config says how to connect. Credentials and Applier are required.
type Config struct {
	Credentials *join.Credentials
	Applier     Applier
	// Certs, when set, is where every handshake (MQTT and REST) takes the
	// node certificate from, so a renewed one is used from the next
	// connection on; nil presents Credentials' certificate.
	Certs *join.CertSource
	// Roots, when set, is what every handshake verifies the server
	// against, so a new CA bundle is trusted from the next connection on;
	// nil trusts the CAs of Credentials.
	Roots *join.Roots
	// Brokers defaults to Credentials.MQTTAddresses (mqtts://host:port).
	Brokers []string
	// APIServer defaults to Credentials.ServerURL.
	APIServer string
	// Rev is the revision the Applier already holds (an agent restarting
	// with its local cache): the client then asks for a catch-up from there
	// instead of listing everything. 0 means it holds nothing.
	Rev    int64
	Logger *slog.Logger
	// OnReceive, when set, is called on paho's delivery goroutine for each
	// desired Event as it arrives, before it is queued; it must return
	// quickly. Benchmarks use it to time commit-to-receipt.
	OnReceive func(ev *mqtt.Event, at time.Time)
	// OnRPC, when set, makes the client subscribe to the node's rpc/req
	// topic and hands it each request (agent/logs.Handler.Handle); c
	// publishes the answers. It runs on paho's delivery goroutine and must
	// not block.
	OnRPC func(c *Client, topic string, payload []byte)
	// OnConnect, when set, is called after every connect and reconnect,
	// once the client is subscribed and has announced its presence. It
	// must not block. The agent re-sends its pods' statuses from it: a
	// report the broker took just before the server went away may never
	// have been written.
	OnConnect func()
	// GapWait is how long to wait at least for the server's catch-up after
	// a gap before relisting by REST (default 5s; each wait is drawn
	// between GapWait and twice it).
	GapWait time.Duration
	// HelloInterval: when nothing arrives for this long the client repeats
	// its hello, so a hello or Events lost in a broker restart are noticed
	// (default 60s).
	HelloInterval time.Duration
	// AckDelay is the longest an applied revision waits before its ACK
	// goes out, gathered with those applied meanwhile (default 1s; each
	// wait is drawn between half of it and all of it). It must stay well
	// under the server's stall timeout (10s by default).
	AckDelay time.Duration
	// KeepAlive (default 30s) and MaxReconnectInterval (default 10s) tune
	// paho.
	KeepAlive            time.Duration
	MaxReconnectInterval time.Duration
}

// Client is one node's connection.
type Client struct {
	cfg    Config
	node   string
	log    *slog.Logger
	mqtt   paho.Client
	http   *http.Client
	q      *queue
	stream *stream
	acks   *acker

	cancel context.CancelFunc
	once   sync.Once
}

// Connect starts the client: it connects in the background (and keeps
// reconnecting), and applies the node's desired stream until Close or
// until ctx ends. It fails only on bad configuration.
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	tlsCfg, err := cfg.Credentials.TLSConfig()
	if err != nil {
		return nil, fmt.Errorf("mqtt client: %w", err)
	}
	if cfg.Certs != nil {
		tlsCfg = cfg.Certs.Use(tlsCfg)
	}
	restTLS, err := cfg.restTLS(tlsCfg)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, node: cfg.Credentials.NodeName, log: cfg.Logger.With("node", cfg.Credentials.NodeName),
		http: &http.Client{Transport: &http.Transport{TLSClientConfig: restTLS, ForceAttemptHTTP2: true}, Timeout: time.Minute},
		q:    newQueue()}
	c.stream = newStream(c)
	c.acks = &acker{delay: cfg.AckDelay, send: func(rev int64) { c.publishAck(mqtt.AckApplied, rev, 0) }}
	c.mqtt = paho.NewClient(c.options(tlsCfg))
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	go c.stream.run(sctx)
	context.AfterFunc(ctx, c.Close)
	c.mqtt.Connect() // with ConnectRetry, completes only once connected
	return c, nil
}

func (cfg *Config) setDefaults() error {
	switch {
	case cfg.Credentials == nil:
		return errors.New("mqtt client: Credentials are required")
	case cfg.Applier == nil:
		return errors.New("mqtt client: Applier is required")
	}
	if len(cfg.Brokers) == 0 {
		cfg.Brokers = cfg.Credentials.MQTTAddresses
	}
	if cfg.APIServer == "" {
		cfg.APIServer = cfg.Credentials.ServerURL
	}
	switch {
	case len(cfg.Brokers) == 0:
		return errors.New("mqtt client: no broker address (Brokers, or the credentials' MQTT addresses)")
	case cfg.APIServer == "":
		return errors.New("mqtt client: no API server URL (APIServer, or the credentials' server URL)")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg.GapWait = orDefault(cfg.GapWait, 5*time.Second)
	cfg.HelloInterval = orDefault(cfg.HelloInterval, time.Minute)
	cfg.AckDelay = orDefault(cfg.AckDelay, time.Second)
	cfg.KeepAlive = orDefault(cfg.KeepAlive, 30*time.Second)
	cfg.MaxReconnectInterval = orDefault(cfg.MaxReconnectInterval, 10*time.Second)
	return nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Close marks the node offline, disconnects and stops the stream. (A clean
// disconnect does not fire the Last Will, so Close publishes "offline"
// itself.) It is safe to call more than once.
func (c *Client) Close() {
	c.once.Do(func() {
		if c.mqtt.IsConnectionOpen() {
			c.mqtt.Publish(mqtt.PresenceTopic(c.node), 1, true, presenceOffline).WaitTimeout(time.Second)
		}
		c.acks.close()
		c.mqtt.Disconnect(250)
		c.cancel()
		<-c.stream.done
		c.http.CloseIdleConnections()
	})
}

// CertificateRenewed closes the REST connections that are idle, so the
// next request shakes hands with the renewed certificate. The MQTT
// connection needs nothing: the broker ends the old certificate's session
// and paho reconnects with the new one.
func (c *Client) CertificateRenewed() { c.http.CloseIdleConnections() }

// Rev is the revision of the node's view the Applier holds (0 before the
// first sync).
func (c *Client) Rev() int64 { return c.stream.rev() }

// Node is the node name (and MQTT client ID).
func (c *Client) Node() string { return c.node }
