package broker

import (
	"strings"
	"sync"

	"github.com/bramble-edge/bramble/mqtt"
)

// maxCachedIdentities bounds identityCache: past it the cache starts
// over (a fleet of that many identities only re-parses once each).
const maxCachedIdentities = 1 << 16

// identityCache remembers what parseIdentityKey made of each session's
// identity key. mochi calls the ACL hook for every message a client
// publishes and every one delivered to it; parsing the key each time
// allocated its name and ran the name's validation (a regular
// expression) per delivery. An entry is a pure function of its key, so a
// hit is always what a parse would give; about 100 bytes per identity.
type identityCache struct {
	mu  sync.RWMutex
	ids map[string]identity
}

// lookup returns the identity of key (a session's Username), parsing it
// on a miss; false when key is not an identity.
func (c *identityCache) lookup(key []byte) (identity, bool) {
	c.mu.RLock()
	id, ok := c.ids[string(key)] // no allocation: the conversion does not escape
	c.mu.RUnlock()
	if ok {
		return id, true
	}
	id, ok = parseIdentityKey(string(key))
	if !ok {
		return identity{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids == nil || len(c.ids) >= maxCachedIdentities {
		c.ids = make(map[string]identity)
	}
	c.ids[string(key)] = id
	return id, true
}

// nodesPrefix is what every node's subtree starts with, taken from the
// one definition of a subtree (mqtt.NodeSubtree(n) is nodesPrefix+n+"/").
var nodesPrefix = strings.TrimSuffix(mqtt.NodeSubtree(""), "/")

// underNode is under(s, mqtt.NodeSubtree(node)) without building the
// subtree's name.
func underNode(s, node string) bool {
	rest, ok := strings.CutPrefix(s, nodesPrefix)
	if !ok {
		return false
	}
	rest, ok = strings.CutPrefix(rest, node)
	return ok && len(rest) > 1 && rest[0] == '/'
}
