package broker

import (
	"fmt"
	"strings"

	"github.com/mochi-mqtt/server/v2/packets"
)

// maxClientSuffix bounds the part after "<viewer>/" in a viewer's client ID.
const maxClientSuffix = 64

// clientIDFits reports whether a connection of id may use client ID cid.
// A node's client ID is its name (its presence and session are keyed by
// it). A viewer's is its name or "<name>/<suffix>", so that several
// dashboards sharing one viewer credential connect at once, each with its
// own session; the suffix is 1-64 characters of letters, digits, '-', '_'
// and '.'. Two connections with the same client ID take each other over,
// as MQTT says.
func (id identity) clientIDFits(cid string) bool {
	if cid == id.name {
		return true
	}
	if id.kind != kindViewer {
		return false
	}
	suffix, ok := strings.CutPrefix(cid, id.name+"/")
	return ok && validClientSuffix(suffix)
}

func (id identity) clientIDRule() string {
	if id.kind == kindViewer {
		return fmt.Sprintf("%q or %q", id.name, id.name+"/<suffix>")
	}
	return fmt.Sprintf("%q", id.name)
}

func validClientSuffix(s string) bool {
	if s == "" || len(s) > maxClientSuffix {
		return false
	}
	for _, r := range s {
		ok := r == '-' || r == '_' || r == '.' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// RevokeViewer drops every live session of viewer name (one per client
// ID it used) whose certificate the ViewerCheck no longer accepts. It does
// not block.
func (b *Broker) RevokeViewer(name string) {
	for _, cl := range b.server.Clients.GetAll() {
		id, ok := parseIdentityKey(string(cl.Properties.Username))
		if !ok || id.kind != kindViewer || id.name != name || cl.Closed() {
			continue
		}
		if cert := peerCert(cl); cert != nil && b.cfg.ViewerCheck != nil && b.hook.checkCert(id, cert) == nil {
			continue
		}
		b.cfg.Logger.Info("mqtt session dropped: viewer credential revoked", "viewer", name, "client", cl.ID)
		cl.Stop(packets.ErrNotAuthorized)
	}
}
