package encryption

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"time"
)

// Admin carries out `bramble secrets-encrypt` on a running server: each
// change edits the keys file and then rewrites every Secret online, so no
// restart is needed. One operation runs at a time.
type Admin struct {
	store *Store
	mu    sync.Mutex
}

// NewAdmin returns the operations on store's keys and Secrets.
func NewAdmin(store *Store) *Admin { return &Admin{store: store} }

// KeyStatus is one listed key.
type KeyStatus struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Current bool      `json:"current"`
	Secrets int       `json:"secrets"` // Secrets stored under it now
}

// Status is what `status` prints.
type Status struct {
	Enabled   bool        `json:"enabled"`
	Stage     string      `json:"stage"`
	KeysFile  string      `json:"keysFile"`
	Keys      []KeyStatus `json:"keys"`
	Plaintext int         `json:"plaintextSecrets"`
	// Unknown counts Secrets under key ids the file does not list.
	Unknown int `json:"unknownKeySecrets"`
	// KeysHash sums the listed keys (ids and material, current first): servers
	// sharing a datastore must show the same.
	KeysHash string `json:"keysHash"`
}

// keysHash is the first 16 hex digits of a SHA-256 over f's current id and
// keys.
func keysHash(f keyFile) string {
	h := sha256.New()
	h.Write([]byte(f.Current))
	for _, k := range f.Keys {
		h.Write([]byte{0})
		h.Write([]byte(k.ID))
		h.Write(k.Secret)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Status reports the keys and how many Secrets each holds.
func (a *Admin) Status(ctx context.Context) (Status, error) {
	counts, err := a.store.countByKey(ctx)
	if err != nil {
		return Status{}, err
	}
	f := a.store.keys.state.Load().file
	st := Status{Enabled: f.Current != "", Stage: f.Stage, KeysFile: a.store.keys.path, Plaintext: counts[""],
		KeysHash: keysHash(f)}
	delete(counts, "")
	for _, k := range f.Keys {
		st.Keys = append(st.Keys, KeyStatus{ID: k.ID, Created: k.Created, Current: k.ID == f.Current, Secrets: counts[k.ID]})
		delete(counts, k.ID)
	}
	for _, n := range counts {
		st.Unknown += n
	}
	return st, nil
}

// Reencrypt rewrites every Secret with the current key.
func (a *Admin) Reencrypt(ctx context.Context) (Reencrypted, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reencrypt(ctx)
}

func (a *Admin) reencrypt(ctx context.Context) (Reencrypted, error) {
	if err := a.setStage(StageReencrypt); err != nil {
		return Reencrypted{}, err
	}
	done, err := a.store.reencrypt(ctx)
	stage := StageFinished
	if err != nil {
		stage = StageReencryptKO
	}
	return done, errors.Join(err, a.setStage(stage))
}

func (a *Admin) setStage(stage string) error {
	return a.store.keys.change(func(f *keyFile) error { f.Stage = stage; return nil })
}

// Enable makes the newest key current (drawing one if none is listed) and
// encrypts every Secret with it.
func (a *Admin) Enable(ctx context.Context) (Reencrypted, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.store.keys.change(func(f *keyFile) error {
		if len(f.Keys) == 0 {
			k, err := newKey(time.Now())
			if err != nil {
				return err
			}
			f.Keys = []fileKey{k}
		}
		f.Current = f.Keys[0].ID
		return nil
	})
	if err != nil {
		return Reencrypted{}, err
	}
	return a.reencrypt(ctx)
}

// Disable stops encrypting new writes and writes every Secret back as
// plaintext; the keys stay listed so older snapshots still read.
func (a *Admin) Disable(ctx context.Context) (Reencrypted, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.store.keys.change(func(f *keyFile) error { f.Current = ""; return nil }); err != nil {
		return Reencrypted{}, err
	}
	return a.reencrypt(ctx)
}

// RotateKeys draws a new key, makes it current and reencrypts every Secret
// with it. Old keys stay listed (snapshots taken before still restore)
// unless prune is set: then keys no Secret uses any more are removed.
func (a *Admin) RotateKeys(ctx context.Context, prune bool) (Reencrypted, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.store.keys.change(func(f *keyFile) error {
		k, err := newKey(time.Now())
		if err != nil {
			return err
		}
		f.Keys, f.Current = append([]fileKey{k}, f.Keys...), k.ID
		return nil
	})
	if err != nil {
		return Reencrypted{}, err
	}
	done, err := a.reencrypt(ctx)
	if err != nil || !prune {
		return done, err
	}
	return done, a.prune(ctx)
}

// prune removes the keys, other than the current one, that no Secret uses.
func (a *Admin) prune(ctx context.Context) error {
	counts, err := a.store.countByKey(ctx)
	if err != nil {
		return err
	}
	return a.store.keys.change(func(f *keyFile) error {
		f.Keys = slices.DeleteFunc(f.Keys, func(k fileKey) bool { return k.ID != f.Current && counts[k.ID] == 0 })
		return nil
	})
}
