package join

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// Start loads every record (so Valid answers correctly when Start returns)
// and keeps the memory current with a watch until Stop or ctx ends.
func (r *NodeCertRegistry) Start(ctx context.Context) error {
	rev, err := r.reload(ctx)
	if err != nil {
		return err
	}
	ctx, r.cancel = context.WithCancel(ctx)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.run(ctx, rev)
	}()
	return nil
}

// Stop ends the watch and waits for it.
func (r *NodeCertRegistry) Stop() {
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
}

// run watches from rev, resuming after a closed watch and reloading when
// the revision it needs was compacted.
func (r *NodeCertRegistry) run(ctx context.Context, rev int64) {
	for ctx.Err() == nil {
		next, err := r.watch(ctx, rev)
		if errors.Is(err, datastore.ErrCompacted) {
			next, err = r.reload(ctx)
		}
		if err != nil && ctx.Err() == nil {
			r.cfg.Logger.Warn("node certificate watch failed; retrying", "rev", rev, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(r.cfg.RetryInterval):
			}
			continue
		}
		rev = next
	}
}

// watch applies events after rev until the channel closes and returns the
// last revision applied.
func (r *NodeCertRegistry) watch(ctx context.Context, rev int64) (int64, error) {
	ch, err := r.store.Watch(ctx, NodeCertPrefix, rev)
	if err != nil {
		return rev, err
	}
	for batch := range ch {
		for _, ev := range batch {
			r.applyEvent(ev)
			rev = ev.Revision
		}
	}
	return rev, nil
}

func (r *NodeCertRegistry) applyEvent(ev datastore.Event) {
	node := strings.TrimPrefix(ev.KV.Key, NodeCertPrefix)
	if ev.Type == datastore.EventDelete {
		r.apply(node, nil, ev.Revision)
		return
	}
	serial, err := parseRecord(ev.KV)
	if err != nil {
		// A record that does not read validates nothing.
		r.cfg.Logger.Warn("unreadable node certificate record", "key", ev.KV.Key, "err", err)
		r.apply(node, nil, ev.Revision)
		return
	}
	r.apply(node, serial, ev.Revision)
}

// reload lists every record and replaces the memory with it, keeping only
// entries newer than the list (written here meanwhile).
func (r *NodeCertRegistry) reload(ctx context.Context) (int64, error) {
	fresh, rev, err := r.listRecords(ctx)
	if err != nil {
		return 0, err
	}
	r.mu.Lock()
	var gone []string
	for node, e := range r.entries {
		if e.rev > rev {
			fresh[node] = e
		} else if invalidates(e.serial, fresh[node].serial) {
			gone = append(gone, node)
		}
	}
	r.entries, r.loaded = fresh, true
	r.mu.Unlock()
	for _, node := range gone {
		r.notify(node)
	}
	return rev, nil
}

// listRecords reads every record, page by page at one revision.
func (r *NodeCertRegistry) listRecords(ctx context.Context) (map[string]certEntry, int64, error) {
	fresh := map[string]certEntry{}
	opts := datastore.ListOptions{}
	for {
		res, err := r.store.List(ctx, NodeCertPrefix, opts)
		if err != nil {
			return nil, 0, fmt.Errorf("load node certificate records: %w", err)
		}
		for _, kv := range res.Items {
			serial, err := parseRecord(kv)
			if err != nil {
				r.cfg.Logger.Warn("unreadable node certificate record", "key", kv.Key, "err", err)
				continue
			}
			fresh[strings.TrimPrefix(kv.Key, NodeCertPrefix)] = certEntry{serial: serial, rev: kv.ModRevision}
		}
		if res.Continue == "" {
			return fresh, res.Revision, nil
		}
		opts = datastore.ListOptions{Revision: res.Revision, Continue: res.Continue}
	}
}

func parseRecord(kv *datastore.KeyValue) (*big.Int, error) {
	var rec nodeCertRecord
	if err := json.Unmarshal(kv.Value, &rec); err != nil {
		return nil, err
	}
	serial, ok := new(big.Int).SetString(rec.Serial, 16)
	if !ok {
		return nil, fmt.Errorf("serial %q is not hexadecimal", rec.Serial)
	}
	return serial, nil
}
