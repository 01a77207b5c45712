package broker

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"log/slog"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/bramble-edge/bramble/metrics"
)

// CertCheck reports whether a node's certificate is still its current one
// (nil) or was revoked or replaced (an error saying which). The server
// passes its NodeCertRegistry's Check.
type CertCheck func(node string, cert *x509.Certificate) error

// authHook authenticates every connection by its verified client
// certificate and enforces the topic rules of each identity. The server's
// inline client bypasses it (mochi skips ACL checks for inline clients; the
// hook allows them too).
type authHook struct {
	mochi.HookBase
	server      *mochi.Server
	check       CertCheck
	viewerCheck CertCheck
	log         *slog.Logger
	maxInflight int
	ids         identityCache
}

func (h *authHook) ID() string { return "bramble-auth" }

func (h *authHook) Provides(b byte) bool {
	return bytes.IndexByte([]byte{mochi.OnConnectAuthenticate, mochi.OnACLCheck, mochi.OnPublish,
		mochi.OnSessionEstablished, mochi.OnQosPublish}, b) >= 0
}

// OnConnectAuthenticate admits a connection whose certificate maps to an
// identity, whose client ID equals that identity's name, whose node
// certificate passes the CertCheck, and whose Last Will (if any) targets a
// topic the identity may publish to. Usernames and passwords are ignored.
func (h *authHook) OnConnectAuthenticate(cl *mochi.Client, pk packets.Packet) bool {
	id, err := h.authenticate(cl, pk)
	if err != nil {
		h.log.Info("mqtt connection refused", "client", cl.ID, "remote", cl.Net.Remote, "err", err)
		return false
	}
	cl.Properties.Username = []byte(id.key())
	h.log.Debug("mqtt client connected", "client", cl.ID, "identity", id.key())
	return true
}

func (h *authHook) authenticate(cl *mochi.Client, pk packets.Packet) (identity, error) {
	cert := peerCert(cl)
	if cert == nil {
		return identity{}, fmt.Errorf("%w: no verified client certificate", ErrIdentity)
	}
	id, err := identityFromCert(cert)
	if err != nil {
		return identity{}, err
	}
	if !id.clientIDFits(cl.ID) {
		return identity{}, fmt.Errorf("%w: client ID %q does not match the certificate's identity: want %s", ErrIdentity, cl.ID, id.clientIDRule())
	}
	if err := h.checkCert(id, cert); err != nil {
		return identity{}, err
	}
	if w := pk.Connect; w.WillFlag && (!id.mayWrite(w.WillTopic) || (w.WillRetain && !id.mayRetain(w.WillTopic))) {
		return identity{}, fmt.Errorf("%w: last will topic %q is not allowed for %s", ErrIdentity, w.WillTopic, id.key())
	}
	if old, ok := h.server.Clients.Get(cl.ID); ok && string(old.Properties.Username) != id.key() {
		return identity{}, fmt.Errorf("%w: client ID %q is in use by another identity", ErrIdentity, cl.ID)
	}
	return id, nil
}

// checkCert applies the CertCheck to node identities and the ViewerCheck
// to viewers.
func (h *authHook) checkCert(id identity, cert *x509.Certificate) error {
	check := h.check
	if id.kind == kindViewer {
		check = h.viewerCheck
	}
	if check == nil {
		return nil
	}
	if err := check(id.name, cert); err != nil {
		return fmt.Errorf("%w: %w", ErrIdentity, err)
	}
	return nil
}

// OnSessionEstablished checks a node's certificate once more, now that the
// session is registered: a revocation that raced the connection (checked
// before, Revoke'd before the session was listed) is caught here.
func (h *authHook) OnSessionEstablished(cl *mochi.Client, _ packets.Packet) {
	id, ok := parseIdentityKey(string(cl.Properties.Username))
	if !ok {
		return
	}
	if cert := peerCert(cl); cert == nil || h.checkCert(id, cert) != nil {
		h.log.Info("mqtt session dropped: certificate revoked", "identity", id.key())
		cl.Stop(packets.ErrNotAuthorized)
	}
}

// OnACLCheck allows the inline client everything and every other client
// what its identity may: subscribe filters and delivered topics are checked
// with write=false, published topics with write=true.
func (h *authHook) OnACLCheck(cl *mochi.Client, topic string, write bool) bool {
	if cl.Net.Inline {
		return true
	}
	id, ok := h.ids.lookup(cl.Properties.Username)
	if !ok {
		return false
	}
	if write {
		return id.mayWrite(topic)
	}
	return id.mayRead(topic)
}

// OnPublish keeps retained messages to what the identity may retain (a
// node's presence); elsewhere the message is delivered but not retained.
func (h *authHook) OnPublish(cl *mochi.Client, pk packets.Packet) (packets.Packet, error) {
	if cl.Net.Inline || !pk.FixedHeader.Retain {
		return pk, nil
	}
	if id, ok := h.ids.lookup(cl.Properties.Username); !ok || !id.mayRetain(pk.TopicName) {
		pk.FixedHeader.Retain = false
	}
	return pk, nil
}

// OnQosPublish ends a client that holds maxInflight unacknowledged QoS 1/2
// messages: it is not keeping up, and every further message for it would
// be dropped anyway.
func (h *authHook) OnQosPublish(cl *mochi.Client, _ packets.Packet, _ int64, _ int) {
	if cl.Net.Inline || cl.Closed() || cl.State.Inflight.Len() < h.maxInflight {
		return
	}
	h.log.Warn("mqtt client dropped: too many unacknowledged messages", "client", cl.ID, "inflight", cl.State.Inflight.Len())
	metrics.MQTTSlowClientsDropped.Inc()
	cl.Stop(errSlowConsumer)
}

// peerCert returns the verified client certificate of cl's connection.
func peerCert(cl *mochi.Client) *x509.Certificate {
	if c, ok := cl.Net.Conn.(*brokerConn); ok {
		return c.peer
	}
	return nil
}
