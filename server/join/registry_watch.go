package join

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/datastore/listwatch"
)

// Start loads every record (so Valid answers correctly when Start returns)
// and keeps the memory current by following NodeCertPrefix until Stop or
// ctx ends.
func (r *NodeCertRegistry) Start(ctx context.Context) error {
	r.follow = listwatch.New(r.store, NodeCertPrefix, recordsHandler{r},
		listwatch.Config{Logger: r.cfg.Logger, Backoff: listwatch.Backoff{Min: r.cfg.RetryInterval}})
	return r.follow.Start(ctx)
}

// Stop ends the watch and waits for it.
func (r *NodeCertRegistry) Stop() {
	if r.follow != nil {
		r.follow.Stop()
	}
	r.mu.Lock()
	r.stopping = true
	r.mu.Unlock()
	r.bg.Wait()
}

// recordsHandler applies what the Follower of NodeCertPrefix hands over.
type recordsHandler struct{ r *NodeCertRegistry }

func (h recordsHandler) OnReplace(_ context.Context, l *listwatch.List) error { return h.r.reload(l) }
func (h recordsHandler) OnEvent(_ context.Context, ev *datastore.Event)       { h.r.applyEvent(*ev) }

func (r *NodeCertRegistry) applyEvent(ev datastore.Event) {
	node := strings.TrimPrefix(ev.KV.Key, NodeCertPrefix)
	if ev.Type == datastore.EventDelete {
		r.apply(node, certEntry{rev: ev.Revision})
		return
	}
	e, err := parseRecord(ev.KV)
	if err != nil {
		// A record that does not read validates nothing.
		r.cfg.Logger.Warn("unreadable node certificate record", "key", ev.KV.Key, "err", err)
		r.apply(node, certEntry{rev: ev.Revision})
		return
	}
	r.apply(node, e)
}

// reload replaces the memory with every record of the list, keeping only
// entries newer than the list (written here meanwhile).
func (r *NodeCertRegistry) reload(l *listwatch.List) error {
	fresh := map[string]certEntry{}
	err := l.Each(func(kv *datastore.KeyValue) {
		e, err := parseRecord(kv)
		if err != nil {
			r.cfg.Logger.Warn("unreadable node certificate record", "key", kv.Key, "err", err)
			return
		}
		fresh[strings.TrimPrefix(kv.Key, NodeCertPrefix)] = e
	})
	if err != nil {
		return fmt.Errorf("load node certificate records: %w", err)
	}
	r.mu.Lock()
	var gone []string
	for node, e := range r.entries {
		if e.rev > l.Revision() {
			fresh[node] = e
		} else if invalidates(e.serial, fresh[node].serial) {
			gone = append(gone, node)
		}
	}
	changed := presenceChanges(r.entries, fresh)
	r.entries, r.loaded = fresh, true
	r.mu.Unlock()
	for _, node := range gone {
		r.notify(node)
	}
	for _, node := range changed {
		r.changed(node)
	}
	return nil
}

// parseRecord reads a stored record into its in-memory entry.
func parseRecord(kv *datastore.KeyValue) (certEntry, error) {
	var rec nodeCertRecord
	if err := json.Unmarshal(kv.Value, &rec); err != nil {
		return certEntry{}, err
	}
	serial, ok := new(big.Int).SetString(rec.Serial, 16)
	if !ok {
		return certEntry{}, fmt.Errorf("serial %q is not hexadecimal", rec.Serial)
	}
	e := certEntry{serial: serial, seen: rec.NodeSeen, rev: kv.ModRevision}
	if rec.Previous != "" {
		if e.previous, ok = new(big.Int).SetString(rec.Previous, 16); !ok {
			return certEntry{}, fmt.Errorf("previous serial %q is not hexadecimal", rec.Previous)
		}
	}
	return e, nil
}
