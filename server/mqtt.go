package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/bramble-edge/bramble/metrics"
	"github.com/bramble-edge/bramble/mqtt"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/pki"
)

// mqttSide is the server's end of the MQTT fabric: the Bus it publishes and
// subscribes through, and the broker addresses given to joining nodes.
type mqttSide struct {
	bus    mqtt.Bus
	addrs  []string
	broker atomic.Pointer[broker.Broker] // nil with an external broker
	// viewerCheck is the record of viewer credentials (set before start).
	viewerCheck broker.CertCheck
	closeFn     func()
}

// revoke drops a revoked node's live session on the embedded broker; the
// node certificate registry calls it.
func (m *mqttSide) revoke(node string) {
	if b := m.broker.Load(); b != nil {
		b.Revoke(node)
	}
}

// start runs the embedded broker on --mqtt-listen-port, or dials the
// external broker of --mqtt-broker with the server's own certificate.
func (m *mqttSide) start(ctx context.Context, cfg Config, log *slog.Logger, ca *pki.PKI, check broker.CertCheck) error {
	if cfg.MQTTBroker != "" {
		return m.dial(ctx, cfg, log)
	}
	b, err := broker.New(broker.Config{
		Addr: net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.MQTTListenPort)),
		TLS:  ca.ServingTLSConfig(), CertCheck: check, ViewerCheck: m.viewerCheck, Logger: log,
	})
	if err != nil {
		return fmt.Errorf("mqtt broker: %w", err)
	}
	if err := b.Start(ctx); err != nil {
		return fmt.Errorf("--mqtt-listen-port %d: %w", cfg.MQTTListenPort, err)
	}
	m.broker.Store(b)
	metrics.SetBroker(b.Stats)
	m.bus = b.Bus()
	m.addrs = brokerURLs(ca.ServingCertificate(), cfg.BindAddress, cfg.MQTTListenPort)
	m.closeFn = func() { _ = m.bus.Close(); _ = b.Stop() }
	return nil
}

func (m *mqttSide) dial(ctx context.Context, cfg Config, log *slog.Logger) error {
	tc, err := externalBrokerTLS(cfg)
	if err != nil {
		return err
	}
	bus, err := broker.DialExternal(ctx, broker.ExternalConfig{URL: cfg.MQTTBroker, TLS: tc, Logger: log})
	if err != nil {
		return fmt.Errorf("--mqtt-broker %s: %w", cfg.MQTTBroker, err)
	}
	m.bus, m.addrs = bus, []string{cfg.MQTTBroker}
	m.closeFn = func() { _ = bus.Close() }
	return nil
}

func (m *mqttSide) close() {
	if m.closeFn != nil {
		m.closeFn()
	}
}

// externalBrokerTLS reads --mqtt-ca, --mqtt-cert and --mqtt-key.
func externalBrokerTLS(cfg Config) (*tls.Config, error) {
	caPEM, err := os.ReadFile(cfg.MQTTCA)
	if err != nil {
		return nil, fmt.Errorf("--mqtt-ca: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("--mqtt-ca %s: no PEM certificate in it", cfg.MQTTCA)
	}
	cert, err := tls.LoadX509KeyPair(cfg.MQTTCert, cfg.MQTTKey)
	if err != nil {
		return nil, fmt.Errorf("--mqtt-cert/--mqtt-key: %w", err)
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// brokerURLs lists mqtts:// URLs for the names and addresses the serving
// certificate covers: non-loopback addresses first, then names, then
// loopback, so a node tries the likeliest first. A broker bound to one
// address (--bind-address) is reachable there only: that one is listed.
func brokerURLs(cert *x509.Certificate, bind string, port int) []string {
	var public, names, loopback []string
	p := strconv.Itoa(port)
	if ip := net.ParseIP(bind); ip != nil && !ip.IsUnspecified() {
		return []string{"mqtts://" + net.JoinHostPort(ip.String(), p)}
	}
	for _, ip := range cert.IPAddresses {
		u := "mqtts://" + net.JoinHostPort(ip.String(), p)
		if ip.IsLoopback() {
			loopback = append(loopback, u)
		} else {
			public = append(public, u)
		}
	}
	for _, n := range cert.DNSNames {
		if n == "localhost" {
			loopback = append(loopback, "mqtts://"+net.JoinHostPort(n, p))
			continue
		}
		names = append(names, "mqtts://"+net.JoinHostPort(n, p))
	}
	return append(append(public, names...), loopback...)
}
