// Package encryption encrypts Secrets at rest: an AES-GCM envelope per
// write (a fresh data key wrapped by a key-encryption key from the keys
// file in <data-dir>/server/cred/), applied by a datastore.Store wrapper to
// the keys under the Secrets' prefix. Everything above the wrapper (the
// registry, the informer cache, watches, the MQTT publisher that sends
// Secrets to agents over TLS) sees plaintext; the database, its WAL and
// every snapshot hold ciphertext.
package encryption

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/bramble-edge/bramble/datastore"
)

// SecretsPrefix is where Secrets are stored.
const SecretsPrefix = "/registry/core/secrets/"

// Store encrypts the values under SecretsPrefix on their way into the inner
// store and decrypts them on their way out; other keys pass untouched.
type Store struct {
	datastore.Store
	keys *Keyring
	log  *slog.Logger
}

var _ datastore.Store = (*Store)(nil)

// NewStore wraps inner with keys; log reports watch events that fail to
// decrypt (the watch then ends, and its reader relists into the error).
func NewStore(inner datastore.Store, keys *Keyring, log *slog.Logger) *Store {
	if log == nil {
		log = slog.Default()
	}
	return &Store{Store: inner, keys: keys, log: log}
}

// Keys is the keyring the store encrypts with.
func (s *Store) Keys() *Keyring { return s.keys }

// Inner is the wrapped store: values under SecretsPrefix as stored.
func (s *Store) Inner() datastore.Store { return s.Store }

func sealed(key string) bool { return strings.HasPrefix(key, SecretsPrefix) }

func (s *Store) encrypt(key string, value []byte) ([]byte, error) {
	if !sealed(key) {
		return value, nil
	}
	return s.keys.Encrypt(key, value)
}

// decryptKV returns kv with its value decrypted: kv itself when there is
// nothing to decrypt, a copy otherwise (kvs may be shared).
func (s *Store) decryptKV(kv *datastore.KeyValue) (*datastore.KeyValue, error) {
	if kv == nil || !sealed(kv.Key) || !isEnvelope(kv.Value) {
		return kv, nil
	}
	plain, err := s.keys.Decrypt(kv.Key, kv.Value)
	if err != nil {
		return nil, err
	}
	out := *kv
	out.Value = plain
	return &out, nil
}

func (s *Store) Create(ctx context.Context, key string, value []byte) (int64, error) {
	v, err := s.encrypt(key, value)
	if err != nil {
		return 0, err
	}
	return s.Store.Create(ctx, key, v)
}

func (s *Store) Update(ctx context.Context, key string, value []byte, expectRev int64) (int64, error) {
	v, err := s.encrypt(key, value)
	if err != nil {
		return 0, err
	}
	return s.Store.Update(ctx, key, v, expectRev)
}

func (s *Store) Get(ctx context.Context, key string) (*datastore.KeyValue, error) {
	kv, err := s.Store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	return s.decryptKV(kv)
}

func (s *Store) Delete(ctx context.Context, key string, expectRev int64) (int64, *datastore.KeyValue, error) {
	rev, prev, err := s.Store.Delete(ctx, key, expectRev)
	if err != nil {
		return rev, prev, err
	}
	if prev, err = s.decryptKV(prev); err != nil {
		return rev, nil, fmt.Errorf("deleted at revision %d: %w", rev, err)
	}
	return rev, prev, nil
}

func (s *Store) List(ctx context.Context, prefix string, opts datastore.ListOptions) (*datastore.ListResult, error) {
	res, err := s.Store.List(ctx, prefix, opts)
	if err != nil || !s.mayHold(prefix) {
		return res, err
	}
	out := *res
	out.Items = make([]*datastore.KeyValue, len(res.Items))
	for i, kv := range res.Items {
		if out.Items[i], err = s.decryptKV(kv); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// mayHold reports whether keys under prefix may be Secrets.
func (s *Store) mayHold(prefix string) bool {
	return strings.HasPrefix(prefix, SecretsPrefix) || strings.HasPrefix(SecretsPrefix, prefix)
}

// Health reports whether the wrapped datastore can write (a full disk
// fails writes while reads go on), when it knows; /readyz asks it.
func (s *Store) Health() error {
	if h, ok := s.Store.(interface{ Health() error }); ok {
		return h.Health()
	}
	return nil
}
