package broker

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/pahostore"
)

// ExternalConfig configures DialExternal.
type ExternalConfig struct {
	// URL of the external broker: mqtts://HOST[:PORT] (port 8883 when
	// omitted). Plain mqtt:// is refused: identities are certificates.
	URL string
	// TLS holds the server's client certificate (--mqtt-cert, --mqtt-key)
	// and RootCAs for the broker (--mqtt-ca). Required.
	TLS *tls.Config
	// ClientID defaults to the client certificate's CN.
	ClientID string
	Logger   *slog.Logger // default slog.Default()
	// Timeout bounds connecting and each subscription, default 10s.
	Timeout time.Duration
}

// pahoBus is the server's Bus on an external broker: one paho client with
// the server's certificate. Its session is persistent, so the broker keeps
// (within its queue bounds) what nodes send while the server is away; the
// subscriptions are also remembered and made again on every connection, in
// case the broker lost the session (a restart without persistence).
type pahoBus struct {
	client  paho.Client
	log     *slog.Logger
	timeout time.Duration

	mu     sync.Mutex
	subs   map[string]pahoSub // by filter
	closed bool
}

type pahoSub struct {
	qos     byte
	handler paho.MessageHandler
}

var _ mqtt.Bus = (*pahoBus)(nil)

// DialExternal connects to an external broker and returns a Bus over it; it
// reconnects by itself until Close. It fails when the first connection does
// not succeed within ctx and cfg.Timeout.
func DialExternal(ctx context.Context, cfg ExternalConfig) (mqtt.Bus, error) {
	broker, err := brokerURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.TLS == nil {
		return nil, errors.New("mqtt bus: TLS: the server's client certificate and the broker's CA are required")
	}
	if cfg.ClientID == "" {
		if cfg.ClientID, err = certCN(cfg.TLS); err != nil {
			return nil, fmt.Errorf("mqtt bus: client ID: %w", err)
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	setDefault(&cfg.Timeout, 10*time.Second)
	b := &pahoBus{log: cfg.Logger, timeout: cfg.Timeout, subs: map[string]pahoSub{}}
	opts := paho.NewClientOptions().AddBroker(broker).SetClientID(cfg.ClientID).
		SetTLSConfig(cfg.TLS.Clone()).SetCleanSession(false).SetAutoReconnect(true).
		SetConnectTimeout(cfg.Timeout).SetMaxReconnectInterval(10 * time.Second).
		SetKeepAlive(30 * time.Second).SetProtocolVersion(4).SetOnConnectHandler(b.onConnect).
		SetOrderMatters(true).SetStore(pahostore.New()).
		SetConnectionLostHandler(func(_ paho.Client, err error) {
			b.log.Warn("mqtt broker connection lost; reconnecting", "broker", broker, "err", err)
		})
	b.client = paho.NewClient(opts)
	if err := waitToken(ctx, b.client.Connect(), cfg.Timeout); err != nil {
		b.client.Disconnect(0)
		return nil, fmt.Errorf("mqtt bus: connect to %s as %q: %w", broker, cfg.ClientID, err)
	}
	b.log.Info("mqtt connected to external broker", "broker", broker, "client", cfg.ClientID)
	return b, nil
}

// brokerURL turns mqtts://host[:port] into paho's tls://host:port.
func brokerURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("mqtt broker URL %q: %w", raw, err)
	}
	if u.Scheme != "mqtts" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.User != nil || u.RawQuery != "" {
		return "", fmt.Errorf("mqtt broker URL %q: want mqtts://HOST[:PORT]", raw)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "8883")
	}
	return "tls://" + host, nil
}

// certCN is the CN of the first client certificate in cfg.
func certCN(cfg *tls.Config) (string, error) {
	if len(cfg.Certificates) == 0 || len(cfg.Certificates[0].Certificate) == 0 {
		return "", errors.New("no client certificate in the TLS configuration")
	}
	leaf := cfg.Certificates[0].Leaf
	if leaf == nil {
		var err error
		if leaf, err = x509.ParseCertificate(cfg.Certificates[0].Certificate[0]); err != nil {
			return "", fmt.Errorf("parse client certificate: %w", err)
		}
	}
	if leaf.Subject.CommonName == "" {
		return "", errors.New("client certificate has no common name")
	}
	return leaf.Subject.CommonName, nil
}

// onConnect subscribes again to everything after each (re)connection. It
// runs on its own goroutine (paho starts it), so it may wait; a filter the
// broker does not take is retried while the connection lasts.
func (b *pahoBus) onConnect(c paho.Client) {
	b.mu.Lock()
	subs := make(map[string]pahoSub, len(b.subs))
	for f, s := range b.subs {
		subs[f] = s
	}
	b.mu.Unlock()
	for filter, s := range subs {
		for err := b.subscribe(filter, s); err != nil; err = b.subscribe(filter, s) {
			b.log.Error("mqtt resubscribe failed; retrying", "filter", filter, "err", err)
			time.Sleep(time.Second)
			if !c.IsConnectionOpen() || b.isClosed() {
				return
			}
		}
	}
	if len(subs) > 0 {
		b.log.Info("mqtt subscriptions renewed after connect", "subscriptions", len(subs))
	}
}

func (b *pahoBus) Publish(ctx context.Context, topic string, qos byte, retained bool, payload []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("publish %s: %w", topic, err)
	}
	if err := validPublish(topic, qos); err != nil {
		return err
	}
	if b.isClosed() {
		return fmt.Errorf("publish %s: %w", topic, mqtt.ErrBusClosed)
	}
	// Fail at once while reconnecting instead of waiting on a token that
	// only completes after the reconnect: the publisher then catches the
	// node up from its acknowledged revision.
	if !b.client.IsConnectionOpen() {
		return fmt.Errorf("publish %s: %w", topic, mqtt.ErrBusDisconnected)
	}
	if err := waitToken(ctx, b.client.Publish(topic, qos, retained, payload), 0); err != nil {
		return fmt.Errorf("publish %s: %w", topic, err)
	}
	return nil
}

// Subscribe remembers the subscription and makes it now when connected
// (otherwise at the next connection). Handlers run in order on paho's
// delivery goroutine.
func (b *pahoBus) Subscribe(filter string, qos byte, handler func(topic string, payload []byte)) error {
	if err := validSubscribe(filter, qos, handler); err != nil {
		return err
	}
	s := pahoSub{qos: qos, handler: func(_ paho.Client, m paho.Message) { handler(m.Topic(), m.Payload()) }}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return fmt.Errorf("subscribe %q: %w", filter, mqtt.ErrBusClosed)
	}
	b.subs[filter] = s
	b.mu.Unlock()
	if !b.client.IsConnectionOpen() {
		return nil
	}
	return b.subscribe(filter, s)
}

func (b *pahoBus) subscribe(filter string, s pahoSub) error {
	tok := b.client.Subscribe(filter, s.qos, s.handler)
	if err := waitToken(context.Background(), tok, b.timeout); err != nil {
		return fmt.Errorf("subscribe %q: %w", filter, err)
	}
	if st, ok := tok.(*paho.SubscribeToken); ok && st.Result()[filter] == 0x80 {
		return fmt.Errorf("subscribe %q: the broker refused it", filter)
	}
	return nil
}

// Close disconnects; later calls fail with ErrBusClosed.
func (b *pahoBus) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	b.mu.Unlock()
	b.client.Disconnect(250)
	return nil
}

func (b *pahoBus) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// waitToken waits for tok within ctx and, when positive, timeout.
func waitToken(ctx context.Context, tok paho.Token, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	select {
	case <-tok.Done():
		return tok.Error()
	case <-ctx.Done():
		return ctx.Err()
	}
}
