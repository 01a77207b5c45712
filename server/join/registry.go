package join

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// NodeCertPrefix is the datastore prefix of the node certificate records:
// NodeCertPrefix+<node> holds the serial of the one certificate that node
// may use. These keys are bramble's own, not API objects.
const NodeCertPrefix = "/bramble/nodecerts/"

// ErrCertRevoked wraps every refusal of Check.
var ErrCertRevoked = errors.New("node certificate revoked")

// nodeCertRecord is the stored value of a node certificate record.
type nodeCertRecord struct {
	Node     string    `json:"node"`
	Serial   string    `json:"serial"` // hex
	NotAfter time.Time `json:"notAfter"`
	Issued   time.Time `json:"issued"`
	// NodeSeen: the node's Node object existed while this certificate was
	// current. A seen record without its Node is revoked (the Node was
	// deleted while no server watched); an unseen one is a node still
	// joining and is left alone.
	NodeSeen bool `json:"nodeSeen,omitempty"`
	// Previous (hex) is the serial of the certificate that asked for the
	// renewal that issued Serial: it may renew again, and only renew,
	// until Serial is first used, so a node whose answer was lost is not
	// locked out (registry_renewal.go).
	Previous string `json:"previous,omitempty"`
}

// certEntry is the in-memory state of one node: its valid serial, or nil
// when the record was deleted (a tombstone), as of revision rev.
type certEntry struct {
	serial   *big.Int
	previous *big.Int // the record's Previous; nil once serial was used
	seen     bool     // the record's NodeSeen
	rev      int64
}

// NodeCertRegistryConfig tunes a NodeCertRegistry; zero values get defaults.
type NodeCertRegistryConfig struct {
	Logger *slog.Logger // default slog.Default()
	// RetryInterval is the first pause before watching again after the
	// watch failed (it doubles on repeated failures); default 1s.
	RetryInterval time.Duration
	Now           func() time.Time
	// OnInvalidate, when set, is called with a node's name each time the
	// certificate that node was using stops being valid (revoked, or
	// replaced by a newer join), whichever server made the change, so the
	// MQTT broker can drop the node's live sessions. It runs on the
	// registry's goroutines, outside its locks, and must not block.
	OnInvalidate func(node string)
	// OnChange, when set, is called with a node's name each time the node
	// gains or loses a current certificate (a first join, a deletion),
	// whichever server made the change; for a join here, before Record
	// returns. Same rules as OnInvalidate (may block briefly: the
	// mosquitto ACL file is rewritten from it).
	OnChange func(node string)
}

// NodeCertRegistry records the certificate issued to each node and answers,
// from memory, whether a certificate is still the node's current one. A new
// join replaces the record (older certificates of that node stop working);
// Revoke deletes it. The memory is kept current by a watch on
// NodeCertPrefix, so a Revoke by any server sharing the datastore takes
// effect at once; a Revoke here takes effect before it returns.
type NodeCertRegistry struct {
	store datastore.Store
	cfg   NodeCertRegistryConfig

	mu      sync.RWMutex
	loaded  bool
	entries map[string]certEntry

	follow   *listwatch.Follower
	bg       sync.WaitGroup // confirmations being written
	stopping bool           // under mu: no more confirmations are written
}

// NewNodeCertRegistry returns a registry over store; Start loads it.
func NewNodeCertRegistry(store datastore.Store, cfg NodeCertRegistryConfig) *NodeCertRegistry {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RetryInterval <= 0 {
		cfg.RetryInterval = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &NodeCertRegistry{store: store, cfg: cfg, entries: map[string]certEntry{}}
}

// Valid reports whether serial is the current certificate of node. Before
// Start has loaded the records every answer is false.
func (r *NodeCertRegistry) Valid(_ context.Context, node string, serial *big.Int) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[node]
	return ok && e.serial != nil && serial != nil && e.serial.Cmp(serial) == 0
}

// Check is Valid in the shape of auth.NodeCertCheck (and of the MQTT
// broker's hook): nil for the node's current certificate, otherwise an
// error wrapping ErrCertRevoked that says what happened.
func (r *NodeCertRegistry) Check(node string, cert *x509.Certificate) error {
	r.mu.RLock()
	e, ok := r.entries[node]
	loaded := r.loaded
	r.mu.RUnlock()
	switch {
	case !loaded:
		return fmt.Errorf("%w: node certificate records are not loaded yet; try again shortly", ErrCertRevoked)
	case ok && e.serial != nil && e.serial.Cmp(cert.SerialNumber) == 0:
		if e.previous != nil {
			r.confirm(node, e.serial)
		}
		return nil
	case ok && e.serial != nil:
		return fmt.Errorf("%w: certificate %x of node %s was replaced by a newer join", ErrCertRevoked, cert.SerialNumber, node)
	case ok:
		return fmt.Errorf("%w: node %s was deleted; join again", ErrCertRevoked, node)
	}
	return fmt.Errorf("%w: no certificate of node %s is on record; join again", ErrCertRevoked, node)
}

// Record makes cert the one certificate node may use.
func (r *NodeCertRegistry) Record(ctx context.Context, node string, cert *x509.Certificate) error {
	return r.record(ctx, node, cert, nil)
}

// record is Record noting previous (nil: none) as the record's Previous.
func (r *NodeCertRegistry) record(ctx context.Context, node string, cert *x509.Certificate, previous *big.Int) error {
	first := !r.hasCert(node)
	seen, err := nodeExists(ctx, r.store, node)
	if err != nil {
		return fmt.Errorf("record certificate of node %s: %w", node, err)
	}
	rec := nodeCertRecord{Node: node, Serial: cert.SerialNumber.Text(16),
		NotAfter: cert.NotAfter.UTC(), Issued: r.cfg.Now().UTC(), NodeSeen: seen}
	if previous != nil {
		rec.Previous = previous.Text(16)
	}
	value, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("record certificate of node %s: %w", node, err)
	}
	rev, err := r.put(ctx, NodeCertPrefix+node, value)
	if err != nil {
		return fmt.Errorf("record certificate of node %s: %w", node, err)
	}
	r.apply(node, certEntry{serial: new(big.Int).Set(cert.SerialNumber), previous: previous, seen: seen, rev: rev})
	if first {
		// The watch may have applied the record first, its OnChange still
		// running: OnChange's work must be done before the join is answered.
		r.changed(node)
	}
	return nil
}

// put creates or replaces key, retrying when a concurrent writer wins.
func (r *NodeCertRegistry) put(ctx context.Context, key string, value []byte) (int64, error) {
	for attempt := 0; ; attempt++ {
		kv, err := r.store.Get(ctx, key)
		var rev int64
		switch {
		case errors.Is(err, datastore.ErrNotFound):
			rev, err = r.store.Create(ctx, key, value)
		case err == nil:
			rev, err = r.store.Update(ctx, key, value, kv.ModRevision)
		}
		if (errors.Is(err, datastore.ErrKeyExists) || errors.Is(err, datastore.ErrConflict)) && attempt < 5 {
			continue
		}
		return rev, err
	}
}

// Revoke deletes node's record: every certificate of node is refused from
// now on, until it joins again. Revoking a node without a record is not an
// error.
func (r *NodeCertRegistry) Revoke(ctx context.Context, node string) error {
	// before is the revision the tombstone gets when there is nothing to
	// delete: read first, so a join that lands after the Delete (a later
	// revision) is not hidden by it.
	before, err := r.store.CurrentRevision(ctx)
	if err != nil {
		return fmt.Errorf("revoke certificate of node %s: %w", node, err)
	}
	rev, _, err := r.store.Delete(ctx, NodeCertPrefix+node, 0)
	if errors.Is(err, datastore.ErrNotFound) {
		rev, err = before, nil
	}
	if err != nil {
		return fmt.Errorf("revoke certificate of node %s: %w", node, err)
	}
	r.apply(node, certEntry{rev: rev})
	r.cfg.Logger.Info("revoked node certificate", "node", node, "rev", rev)
	return nil
}

// apply sets node's entry unless a newer revision is already known, and
// reports an invalidated certificate.
func (r *NodeCertRegistry) apply(node string, e certEntry) {
	r.mu.Lock()
	old, ok := r.entries[node]
	if ok && old.rev >= e.rev {
		r.mu.Unlock()
		return
	}
	r.entries[node] = e
	r.mu.Unlock()
	if invalidates(old.serial, e.serial) {
		r.notify(node)
	}
	if (old.serial != nil) != (e.serial != nil) {
		r.changed(node)
	}
}

// invalidates reports whether moving from serial was to now ends a
// certificate that was valid.
func invalidates(was, now *big.Int) bool {
	return was != nil && (now == nil || was.Cmp(now) != 0)
}

func (r *NodeCertRegistry) notify(node string) {
	if r.cfg.OnInvalidate != nil {
		r.cfg.OnInvalidate(node)
	}
}
