package join

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// A renewal's answer can be lost (the connection drops after the server
// recorded the new certificate): the node still holds only the certificate
// it asked with, which the record no longer names. So a renewal records
// the asking certificate's serial as the record's Previous, and the renew
// endpoint accepts that serial too, to issue yet another certificate. It
// is good for nothing else (Check refuses it), and only until the node
// first uses the certificate issued last: the first Check that accepts
// that one forgets Previous, in memory at once and in the datastore soon
// after.

// CheckRenewal is Check for the renew endpoint: the node's current
// certificate, or the one that asked for the renewal that issued it while
// that new one was never used.
func (r *NodeCertRegistry) CheckRenewal(node string, cert *x509.Certificate) error {
	r.mu.RLock()
	e, ok := r.entries[node]
	pending := r.loaded && ok && e.serial != nil && e.previous != nil && e.previous.Cmp(cert.SerialNumber) == 0
	r.mu.RUnlock()
	if pending {
		return nil
	}
	return r.Check(node, cert)
}

// RecordRenewal makes cert the one certificate node may use, issued on the
// request of the certificate with serial from.
func (r *NodeCertRegistry) RecordRenewal(ctx context.Context, node string, cert *x509.Certificate, from *big.Int) error {
	return r.record(ctx, node, cert, new(big.Int).Set(from))
}

// confirm forgets node's Previous once serial, its current certificate,
// was used: at once in memory, then in the stored record.
func (r *NodeCertRegistry) confirm(node string, serial *big.Int) {
	r.mu.Lock()
	e, ok := r.entries[node]
	changed := ok && e.serial != nil && e.serial.Cmp(serial) == 0 && e.previous != nil
	if changed {
		e.previous = nil
		r.entries[node] = e
	}
	write := changed && !r.stopping
	if write {
		r.bg.Add(1) // under mu: Stop sets stopping under mu before it waits
	}
	r.mu.Unlock()
	if !write {
		return
	}
	go func() {
		defer r.bg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := r.forgetPrevious(ctx, node, serial); err != nil {
			r.cfg.Logger.Warn("forget the previous certificate of a renewed node", "node", node, "err", err)
		}
	}()
}

// forgetPrevious clears Previous from node's stored record if the record
// still names serial.
func (r *NodeCertRegistry) forgetPrevious(ctx context.Context, node string, serial *big.Int) error {
	for range 5 {
		kv, err := r.store.Get(ctx, NodeCertPrefix+node)
		if errors.Is(err, datastore.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		var rec nodeCertRecord
		if err := json.Unmarshal(kv.Value, &rec); err != nil || rec.Serial != serial.Text(16) || rec.Previous == "" {
			return nil
		}
		rec.Previous = ""
		value, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		rev, err := r.store.Update(ctx, kv.Key, value, kv.ModRevision)
		if errors.Is(err, datastore.ErrConflict) {
			continue
		}
		if err == nil {
			if e, perr := parseRecord(&datastore.KeyValue{Key: kv.Key, Value: value, ModRevision: rev}); perr == nil {
				r.apply(node, e)
			}
		}
		if errors.Is(err, datastore.ErrNotFound) {
			return nil
		}
		return err
	}
	return fmt.Errorf("record of node %s keeps changing", node)
}
