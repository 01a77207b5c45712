package encryption

import (
	"crypto/cipher"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// ErrUnknownKey: a value names a key that the keys file does not list.
var ErrUnknownKey = errors.New("encryption key not found")

// Keyring holds the keys of one keys file, swapped atomically when the file
// changes (enable, disable, rotate-keys, or a copy from another server), so
// encryption changes apply without a restart.
type Keyring struct {
	path  string
	mu    sync.Mutex // serializes changes to the file
	state atomic.Pointer[ring]
	// lastReload (unix nanos) limits re-reads on unknown key ids.
	lastReload atomic.Int64
}

// ring is one immutable generation of the keys.
type ring struct {
	file    keyFile
	aeads   map[string]cipher.AEAD
	current cipher.AEAD // nil: writes stay plaintext
}

func newRing(f keyFile) (*ring, error) {
	r := &ring{file: f, aeads: make(map[string]cipher.AEAD, len(f.Keys))}
	for _, k := range f.Keys {
		a, err := newAEAD(k.Secret)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", k.ID, err)
		}
		r.aeads[k.ID] = a
	}
	r.current = r.aeads[f.Current]
	return r, nil
}

// OpenKeyring reads the keys file at path. When it does not exist, it
// creates one: with a fresh current key when enable is true (a new
// cluster's default), or with no key when false. created says so.
func OpenKeyring(path string, enable bool) (k *Keyring, created bool, err error) {
	k = &Keyring{path: path}
	f, err := readKeyFile(path)
	if missing(err) {
		created, f, err = true, keyFile{Stage: StageStart}, nil
		if enable {
			key, kerr := newKey(time.Now())
			if kerr != nil {
				return nil, false, kerr
			}
			f.Keys, f.Current, f.Stage = []fileKey{key}, key.ID, StageFinished
		}
		err = writeKeyFile(path, f)
	}
	if err != nil {
		return nil, false, err
	}
	r, err := newRing(f)
	if err != nil {
		return nil, false, fmt.Errorf("keys file %s: %w", path, err)
	}
	k.state.Store(r)
	return k, created, nil
}

// Path is the keys file.
func (k *Keyring) Path() string { return k.path }

// Enabled reports whether new writes are encrypted.
func (k *Keyring) Enabled() bool { return k.state.Load().current != nil }

// Current is the id of the key new writes use, "" when disabled.
func (k *Keyring) Current() string { return k.state.Load().file.Current }

// aead finds the key id; on a miss it re-reads the keys file (at most once
// a second: another server may have written a new key, and the file been
// copied here) before giving up with ErrUnknownKey.
func (k *Keyring) aead(id string) (cipher.AEAD, error) {
	if a := k.state.Load().aeads[id]; a != nil {
		return a, nil
	}
	now := time.Now().UnixNano()
	if last := k.lastReload.Load(); now-last > int64(time.Second) && k.lastReload.CompareAndSwap(last, now) {
		k.reload()
		if a := k.state.Load().aeads[id]; a != nil {
			return a, nil
		}
	}
	return nil, fmt.Errorf("%w: key %q is not in %s (copy the keys file from the server that wrote it)",
		ErrUnknownKey, id, k.path)
}

// reload re-reads the keys file; a file that fails to read keeps the keys
// in memory.
func (k *Keyring) reload() {
	k.mu.Lock()
	defer k.mu.Unlock()
	f, err := readKeyFile(k.path)
	if err != nil {
		return
	}
	if r, err := newRing(f); err == nil {
		k.state.Store(r)
	}
}

// change applies edit to a copy of the file, writes it, then swaps the
// keys in memory.
func (k *Keyring) change(edit func(f *keyFile) error) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	old := k.state.Load().file
	f := keyFile{Current: old.Current, Stage: old.Stage, Keys: append([]fileKey(nil), old.Keys...)}
	if err := edit(&f); err != nil {
		return err
	}
	r, err := newRing(f)
	if err != nil {
		return err
	}
	if err := writeKeyFile(k.path, f); err != nil {
		return err
	}
	k.state.Store(r)
	return nil
}

// Encrypt seals value, to be stored under storageKey, with the current key;
// with encryption disabled it returns value as is.
func (k *Keyring) Encrypt(storageKey string, value []byte) ([]byte, error) {
	r := k.state.Load()
	if r.current == nil {
		return value, nil
	}
	out, err := seal(r.current, r.file.Current, storageKey, value)
	if err != nil {
		return nil, fmt.Errorf("encrypt %s with key %q: %w", storageKey, r.file.Current, err)
	}
	return out, nil
}

// Decrypt opens a value stored under storageKey with the key it names;
// plaintext values pass through. Errors name the key id.
func (k *Keyring) Decrypt(storageKey string, value []byte) ([]byte, error) {
	if !isEnvelope(value) {
		return value, nil
	}
	e, err := parseEnvelope(value)
	if err != nil {
		return nil, fmt.Errorf("decrypt %s: %w", storageKey, err)
	}
	a, err := k.aead(e.keyID)
	if err != nil {
		return nil, fmt.Errorf("decrypt %s: %w", storageKey, err)
	}
	plain, err := open(a, e, storageKey)
	if err != nil {
		return nil, fmt.Errorf("decrypt %s: %w", storageKey, err)
	}
	return plain, nil
}

// KeyOf names the key a stored value was sealed with, "" for plaintext.
func KeyOf(value []byte) string {
	if !isEnvelope(value) {
		return ""
	}
	e, err := parseEnvelope(value)
	if err != nil {
		return "?malformed"
	}
	return e.keyID
}
