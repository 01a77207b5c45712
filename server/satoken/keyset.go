package satoken

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/auth"
)

// KeyPrefix is the datastore prefix of the published public keys:
// KeyPrefix+<kid> holds a keyRecord. These keys are bramble's own, not API
// objects.
const KeyPrefix = "/bramble/serviceaccount-keys/"

// kidFile remembers which key this server signed with last, so a replaced
// key file is noticed and the old key retired.
const kidFile = "service-account.kid"

// keyRecord is a published public key.
type keyRecord struct {
	PublicKey []byte    `json:"publicKey"` // PKIX DER
	Published time.Time `json:"published"`
	// Retired is when its server stopped signing with it (zero while in
	// use). It stays trusted MaxTTL longer: its last tokens expire by then.
	Retired time.Time `json:"retired,omitzero"`
}

// keySet is the trusted public keys as the datastore publishes them,
// read again (at most once a second) when a token names a key not known.
type keySet struct {
	store  datastore.Store
	now    func() time.Time
	maxTTL time.Duration

	mu      sync.Mutex
	keys    map[string]*rsa.PublicKey
	retired map[string]bool // keys still trusted that no server signs with
	loaded  time.Time
	// missed are key ids looked for in vain since the last reload: a new
	// id forces a reload (a server that joined a moment ago), at most
	// maxForced times a second; a missed one waits for the next second.
	missed  map[string]bool
	forced  int
	forcedT time.Time
}

// maxForced bounds the reloads that unknown key ids force per second.
const maxForced = 10

// publish records sk in the datastore, retires the key this server signed
// with before (when dir/kidFile names another) and drops keys retired
// longer than maxTTL ago.
func (ks *keySet) publish(ctx context.Context, dir string, sk *signingKey) error {
	der, err := x509.MarshalPKIXPublicKey(&sk.priv.PublicKey)
	if err != nil {
		return err
	}
	rec, _ := json.Marshal(keyRecord{PublicKey: der, Published: ks.now().UTC()})
	_, err = ks.store.Create(ctx, KeyPrefix+sk.kid, rec)
	if err != nil && !errors.Is(err, datastore.ErrKeyExists) {
		return fmt.Errorf("publish service account key: %w", err)
	}
	prev, err := os.ReadFile(filepath.Join(dir, kidFile))
	if old := strings.TrimSpace(string(prev)); err == nil && old != "" && old != sk.kid {
		if err := ks.retire(ctx, old); err != nil {
			return err
		}
	}
	if err := auth.WriteFileAtomic(filepath.Join(dir, kidFile), []byte(sk.kid+"\n"), 0o600); err != nil {
		return err
	}
	return ks.reload(ctx, true)
}

// retire marks kid's record retired now, unless it already is.
func (ks *keySet) retire(ctx context.Context, kid string) error {
	kv, err := ks.store.Get(ctx, KeyPrefix+kid)
	if errors.Is(err, datastore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("retire service account key %s: %w", kid, err)
	}
	var rec keyRecord
	if json.Unmarshal(kv.Value, &rec) != nil || !rec.Retired.IsZero() {
		return nil
	}
	rec.Retired = ks.now().UTC()
	val, _ := json.Marshal(rec)
	if _, err := ks.store.Update(ctx, KeyPrefix+kid, val, kv.ModRevision); err != nil && !errors.Is(err, datastore.ErrConflict) {
		return fmt.Errorf("retire service account key %s: %w", kid, err)
	}
	return nil
}

// lookup returns the trusted public key named kid, or nil.
func (ks *keySet) lookup(ctx context.Context, kid string) (*rsa.PublicKey, error) {
	ks.mu.Lock()
	k := ks.keys[kid]
	ks.mu.Unlock()
	if k != nil {
		return k, nil
	}
	if err := ks.reload(ctx, ks.mayForce(kid)); err != nil {
		return nil, err
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	k = ks.keys[kid]
	if k == nil {
		if len(ks.missed) >= 1024 {
			clear(ks.missed)
		}
		ks.missed[kid] = true
	}
	return k, nil
}

// mayForce reports whether a lookup of kid may reload at once.
func (ks *keySet) mayForce(kid string) bool {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.missed[kid] {
		return false
	}
	if now := ks.now(); now.Sub(ks.forcedT) >= time.Second {
		ks.forced, ks.forcedT = 0, now
	}
	ks.forced++
	return ks.forced <= maxForced
}

// reload reads the published keys (unless it did less than a second ago
// and force is false), deleting the ones past their retirement.
func (ks *keySet) reload(ctx context.Context, force bool) error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	now := ks.now()
	if !force && now.Sub(ks.loaded) < time.Second {
		return nil
	}
	list, err := ks.store.List(ctx, KeyPrefix, datastore.ListOptions{})
	if err != nil {
		return fmt.Errorf("read service account keys: %w", err)
	}
	keys, retired := map[string]*rsa.PublicKey{}, map[string]bool{}
	for _, kv := range list.Items {
		kid := strings.TrimPrefix(kv.Key, KeyPrefix)
		var rec keyRecord
		if json.Unmarshal(kv.Value, &rec) != nil {
			continue
		}
		if !rec.Retired.IsZero() && now.After(rec.Retired.Add(ks.maxTTL)) {
			_, _, _ = ks.store.Delete(ctx, kv.Key, kv.ModRevision) // any server may collect it
			continue
		}
		if pub, err := x509.ParsePKIXPublicKey(rec.PublicKey); err == nil {
			if rk, ok := pub.(*rsa.PublicKey); ok {
				keys[kid], retired[kid] = rk, !rec.Retired.IsZero()
			}
		}
	}
	ks.keys, ks.retired, ks.loaded = keys, retired, now
	ks.missed = map[string]bool{}
	return nil
}

// all returns the trusted keys by id.
func (ks *keySet) all(ctx context.Context) (map[string]*rsa.PublicKey, error) {
	if err := ks.reload(ctx, false); err != nil {
		return nil, err
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	out := make(map[string]*rsa.PublicKey, len(ks.keys))
	for k, v := range ks.keys {
		out[k] = v
	}
	return out, nil
}

// signing reports whether kid is trusted and not retired.
func (ks *keySet) signing(ctx context.Context, kid string) bool {
	if ks.reload(ctx, false) != nil {
		return true // unknown: leave the token alone
	}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.keys[kid] != nil && !ks.retired[kid]
}
