package broker

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/packets"
)

// routeKind says how a publish on a node topic is delivered.
type routeKind uint8

const (
	// viaMochi: mochi's own path (its subscriber lookup per publish):
	// anything but exactly one network client subscribes to the topic.
	viaMochi routeKind = iota
	// toNobody: no subscription matches; the publish is dropped, as mochi
	// would drop it.
	toNobody
	// toClient: exactly one network client's subscriptions match.
	toClient
	// toServer: only the server's own (inline) subscriptions match.
	toServer
)

// route is mochi's answer to "who subscribes to this topic", kept.
type route struct {
	kind   routeKind
	client string                     // toClient: the client ID
	qos    byte                       // toClient: the highest QoS of its matching subscriptions
	inline []mochi.InlineSubscription // toServer: the matching ones, by ID
}

// routes memoises mochi's subscriber lookup for the topics the server
// publishes to nodes: mochi builds four fresh maps for every publish to
// answer it, and the answer changes only when a subscription or a session
// does. Every such change bumps gen (routeHook, called by mochi before and
// after it changes its topic index), and a lookup made in an older
// generation is never used again: the whole table is dropped when gen
// moves on, so it holds at most the topics published since the last
// subscription change (one entry, ~100 bytes, per node topic; the lists
// of server subscriptions are shared by the topics they match alike).
type routes struct {
	topics *mochi.TopicsIndex
	gen    atomic.Uint64

	mu      sync.RWMutex
	at      uint64 // the generation byTopic was filled in
	byTopic map[string]route
	lists   map[string][]mochi.InlineSubscription // by their IDs and filters
}

// lookup returns the route of topic, from the table when it is current,
// else from mochi's index (read after gen was).
func (r *routes) lookup(topic string) route {
	g := r.gen.Load()
	r.mu.RLock()
	rt, ok := r.byTopic[topic]
	ok = ok && r.at == g
	r.mu.RUnlock()
	if ok {
		return rt
	}
	rt = r.resolve(topic)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gen.Load() != g { // a subscription changed while resolving: use, do not keep
		return rt
	}
	if r.at != g || r.byTopic == nil {
		r.byTopic, r.lists, r.at = map[string]route{}, map[string][]mochi.InlineSubscription{}, g
	}
	if rt.kind == toServer {
		rt.inline = r.shared(rt.inline)
	}
	r.byTopic[topic] = rt
	return rt
}

// shared returns the list of server subscriptions kept for other topics
// when it has the same ones as l, else keeps l.
func (r *routes) shared(l []mochi.InlineSubscription) []mochi.InlineSubscription {
	var key []byte
	for _, s := range l {
		key = strconv.AppendInt(key, int64(s.Identifier), 10)
		key = append(append(append(key, ' '), s.Filter...), 0)
	}
	if kept, ok := r.lists[string(key)]; ok {
		return kept
	}
	r.lists[string(key)] = l
	return l
}

// resolve asks mochi's topic index who subscribes to topic.
func (r *routes) resolve(topic string) route {
	s := r.topics.Subscribers(topic)
	switch {
	case len(s.Shared) > 0:
		return route{kind: viaMochi}
	case len(s.Subscriptions) == 0 && len(s.InlineSubscriptions) > 0:
		inline := slices.SortedFunc(maps.Values(s.InlineSubscriptions), func(a, b mochi.InlineSubscription) int {
			return cmp.Compare(a.Identifier, b.Identifier)
		})
		return route{kind: toServer, inline: inline}
	case len(s.InlineSubscriptions) > 0 || len(s.Subscriptions) > 1:
		return route{kind: viaMochi}
	}
	for id, sub := range s.Subscriptions {
		return route{kind: toClient, client: id, qos: sub.Qos}
	}
	return route{kind: toNobody}
}

// routeHook moves the routes' generation on whenever mochi may change who
// subscribes to what: (un)subscriptions, the inline client's included, and
// session starts, take-overs, ends and expiries, each before and after.
type routeHook struct {
	mochi.HookBase
	routes *routes
}

func (h *routeHook) ID() string { return "bramble-routes" }

func (h *routeHook) Provides(b byte) bool {
	return bytes.IndexByte([]byte{mochi.OnPublish, mochi.OnSubscribe, mochi.OnSubscribed, mochi.OnUnsubscribe, mochi.OnUnsubscribed,
		mochi.OnSessionEstablish, mochi.OnSessionEstablished, mochi.OnDisconnect, mochi.OnClientExpired}, b) >= 0
}

func (h *routeHook) OnSubscribe(_ *mochi.Client, pk packets.Packet) packets.Packet {
	h.routes.gen.Add(1)
	return pk
}

func (h *routeHook) OnSubscribed(*mochi.Client, packets.Packet, []byte) { h.routes.gen.Add(1) }

func (h *routeHook) OnUnsubscribe(_ *mochi.Client, pk packets.Packet) packets.Packet {
	h.routes.gen.Add(1)
	return pk
}

func (h *routeHook) OnUnsubscribed(*mochi.Client, packets.Packet)       { h.routes.gen.Add(1) }
func (h *routeHook) OnSessionEstablish(*mochi.Client, packets.Packet)   { h.routes.gen.Add(1) }
func (h *routeHook) OnSessionEstablished(*mochi.Client, packets.Packet) { h.routes.gen.Add(1) }
func (h *routeHook) OnDisconnect(*mochi.Client, error, bool)            { h.routes.gen.Add(1) }
func (h *routeHook) OnClientExpired(*mochi.Client)                      { h.routes.gen.Add(1) }
