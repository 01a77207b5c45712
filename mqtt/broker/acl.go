package broker

import (
	"crypto/x509"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/mqtt"
)

// Certificate subjects the broker knows. The cluster CA issues node
// certificates at join (CN=join.NodeUserPrefix+<node>, O=join.NodeGroup)
// and viewer credentials on request (CN=<name>, O=ViewerGroup).
// ServerGroup marks the server's own identity towards an external broker;
// the embedded broker refuses it (the server publishes through the inline
// client there).
const (
	ViewerGroup = join.ViewerGroup
	ServerGroup = "bramble:servers"
	// DefaultServerName is the CN of the server's certificate for an
	// external broker. It holds a colon so that no viewer name (a DNS label)
	// can ever equal it.
	DefaultServerName = "bramble:server"
)

// ErrIdentity wraps every refusal of a client certificate's identity.
var ErrIdentity = errors.New("mqtt identity refused")

type identityKind uint8

const (
	kindNode identityKind = iota + 1
	kindViewer
)

// identity is who a connection is, taken from its verified certificate. The
// MQTT client ID of the connection must equal name.
type identity struct {
	kind identityKind
	name string
}

// key is the identity's stable string form, kept on the session so the ACL
// checks and takeovers can tell who owns it.
func (id identity) key() string {
	switch id.kind {
	case kindNode:
		return "node:" + id.name
	case kindViewer:
		return "viewer:" + id.name
	}
	return ""
}

// parseIdentityKey is the inverse of key; anything else is not an identity.
func parseIdentityKey(s string) (identity, bool) {
	kind, name, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return identity{}, false
	}
	switch {
	case kind == "node" && validNodeName(name) == nil:
		return identity{kind: kindNode, name: name}, true
	case kind == "viewer" && validViewerName(name) == nil:
		return identity{kind: kindViewer, name: name}, true
	}
	return identity{}, false
}

// identityFromCert maps a verified client certificate to its identity:
// CN=system:node:<name> with O=system:nodes is the node <name>; O=bramble:viewers
// is the viewer <CN>; anything else is refused.
func identityFromCert(cert *x509.Certificate) (identity, error) {
	cn, groups := cert.Subject.CommonName, cert.Subject.Organization
	isNode, isViewer := slices.Contains(groups, join.NodeGroup), slices.Contains(groups, ViewerGroup)
	switch {
	case isNode && isViewer:
		return identity{}, fmt.Errorf("%w: certificate %q is in both %q and %q", ErrIdentity, cn, join.NodeGroup, ViewerGroup)
	case isNode:
		name, ok := strings.CutPrefix(cn, join.NodeUserPrefix)
		if !ok {
			return identity{}, fmt.Errorf("%w: certificate %q of group %q: common name must be %s<node>", ErrIdentity, cn, join.NodeGroup, join.NodeUserPrefix)
		}
		if err := validNodeName(name); err != nil {
			return identity{}, fmt.Errorf("%w: certificate %q: %v", ErrIdentity, cn, err)
		}
		return identity{kind: kindNode, name: name}, nil
	case isViewer:
		if err := validViewerName(cn); err != nil {
			return identity{}, fmt.Errorf("%w: certificate %q: %v", ErrIdentity, cn, err)
		}
		return identity{kind: kindViewer, name: cn}, nil
	}
	return identity{}, fmt.Errorf("%w: certificate %q (organization %q) is neither a node (%q) nor a viewer (%q)",
		ErrIdentity, cn, groups, join.NodeGroup, ViewerGroup)
}

// validNodeName accepts a DNS-1123 subdomain, as the join does.
func validNodeName(name string) error {
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return fmt.Errorf("node name %q: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}

// reservedViewerNames would give a viewer credential more than viewing
// elsewhere: the API server treats CN "admin" as the administrator.
var reservedViewerNames = []string{"admin"}

// validViewerName accepts a DNS-1123 label that is not reserved. A label has
// no colon, so it never starts with "system:" nor equals DefaultServerName.
func validViewerName(name string) error {
	if strings.HasPrefix(name, "system:") {
		return fmt.Errorf("viewer name %q: must not start with \"system:\" (reserved for Kubernetes identities)", name)
	}
	if slices.Contains(reservedViewerNames, name) {
		return fmt.Errorf("viewer name %q is reserved (the API server treats it as the administrator)", name)
	}
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		return fmt.Errorf("viewer name %q: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}

// mayWrite reports whether id may publish to topic: a node only below its
// own subtree, a viewer never. Publish topics hold no wildcards.
func (id identity) mayWrite(topic string) bool {
	if id.kind != kindNode || strings.ContainsAny(topic, "+#") {
		return false
	}
	return underNode(topic, id.name)
}

// mayRead reports whether id may subscribe to filter (or receive a message
// on the topic filter): a node only below its own subtree, a viewer only
// below WatchPrefix. Since names hold no wildcard characters, a filter that
// starts with the literal subtree can only match topics inside it, whatever
// wildcards follow.
func (id identity) mayRead(filter string) bool {
	switch id.kind {
	case kindNode:
		return underNode(filter, id.name)
	case kindViewer:
		return under(filter, mqtt.WatchPrefix)
	}
	return false
}

// mayRetain reports whether id may leave a retained message on topic: a
// node only its presence.
func (id identity) mayRetain(topic string) bool {
	return id.kind == kindNode && topic == mqtt.PresenceTopic(id.name)
}

// under reports whether s lies strictly below prefix (which ends in "/").
func under(s, prefix string) bool {
	return len(s) > len(prefix) && strings.HasPrefix(s, prefix)
}
