package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/mqtt/broker"
	"github.com/bramble-edge/bramble/server/join"
)

// mosquittoACL keeps the external mosquitto's ACL file (--mosquitto-acl)
// in step with the node certificate records: a node gets its section when
// it first joins (before the join is answered) and loses it when its Node
// is deleted, whichever server made the change; mosquitto is signalled
// (--mosquitto-pid) after each change. The server's own section (the CN
// of --mqtt-cert) is kept in the file. nil without --mosquitto-acl.
type mosquittoACL struct {
	sync  *broker.MosquittoSync
	nodes func() []string
	log   *slog.Logger
}

func newMosquittoACL(cfg Config, log *slog.Logger) (*mosquittoACL, error) {
	if cfg.MosquittoACL == "" {
		return nil, nil
	}
	pair, err := tls.LoadX509KeyPair(cfg.MQTTCert, cfg.MQTTKey)
	if err != nil {
		return nil, fmt.Errorf("--mqtt-cert/--mqtt-key: %w", err)
	}
	s, err := broker.NewMosquittoSync(broker.MosquittoSyncConfig{ACLFile: cfg.MosquittoACL, PIDFile: cfg.MosquittoPID,
		Server: pair.Leaf.Subject.CommonName, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--mosquitto-acl: %w", err)
	}
	return &mosquittoACL{sync: s, log: log}, nil
}

// onChange is the registry's OnChange hook.
func (m *mosquittoACL) onChange(string) {
	if m == nil || m.nodes == nil {
		return
	}
	if err := m.write(); err != nil {
		m.log.Error("the mosquitto ACL is not up to date: nodes that joined cannot use MQTT, deleted ones still can", "err", err)
	}
}

func (m *mosquittoACL) write() error {
	if err := m.sync.SetNodes(m.nodes()); err != nil {
		return fmt.Errorf("--mosquitto-acl, --mosquitto-pid: %w", err)
	}
	return nil
}

func (m *mosquittoACL) stop() {
	if m != nil {
		m.sync.Stop()
	}
}

// startNodeCerts starts the node certificate registry, with the broker's
// session revocation and the mosquitto ACL hooked to it; the ACL file is
// brought in line with the records before it returns.
func (s *Server) startNodeCerts(bg context.Context, cfg Config, store datastore.Store, side *mqttSide) (*join.NodeCertRegistry, error) {
	mosq, err := newMosquittoACL(cfg, s.log)
	if err != nil {
		return nil, err
	}
	rcfg := join.NodeCertRegistryConfig{Logger: s.log, OnInvalidate: side.revoke}
	if mosq != nil {
		rcfg.OnChange = mosq.onChange
	}
	certs := join.NewNodeCertRegistry(store, rcfg)
	if err := certs.Start(bg); err != nil {
		return nil, fmt.Errorf("node certificate registry: %w", err)
	}
	s.stops = append(s.stops, certs.Stop)
	if mosq != nil {
		mosq.nodes = certs.Nodes
		if err := mosq.write(); err != nil {
			return nil, err
		}
		s.stops = append(s.stops, mosq.stop)
	}
	return certs, nil
}
