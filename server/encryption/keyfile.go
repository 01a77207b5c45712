package encryption

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/bramble-edge/bramble/durable"
	"github.com/bramble-edge/bramble/internal/idrule"
)

// KeysFileName is the keys file inside <data-dir>/server/cred/. Every
// server on one datastore needs the same file (see docs/SECURITY.md).
const KeysFileName = "encryption-keys.json"

// KeysPath is the keys file of the server whose data dir is dataDir.
func KeysPath(dataDir string) string {
	return filepath.Join(dataDir, "server", "cred", KeysFileName)
}

// Rotation stages, named as k3s names them, as `status` shows them.
const (
	StageStart       = "start"
	StageReencrypt   = "reencrypt_active"
	StageFinished    = "reencrypt_finished"
	StageReencryptKO = "reencrypt_failed"
)

// keyFile is the keys file's content. Keys are newest first; Current names
// the key new writes use, "" when encryption is disabled (reads still
// accept every listed key).
type keyFile struct {
	Current string    `json:"current"`
	Stage   string    `json:"stage"`
	Keys    []fileKey `json:"keys"`
}

type fileKey struct {
	ID      string    `json:"id"`
	Secret  []byte    `json:"secret"` // 32 bytes, base64 in JSON
	Created time.Time `json:"created"`
}

// validKeyID reports whether id is 1-64 of A-Z a-z 0-9 . _ - (idrule, not
// a regexp: see there why).
func validKeyID(id string) bool {
	return idrule.Match(id, 1, 64, idrule.Word, idrule.Word)
}

func checkKeyID(id string) error {
	if !validKeyID(id) {
		return fmt.Errorf("key id %q: want 1-64 of A-Z a-z 0-9 . _ -", id)
	}
	return nil
}

// newKey draws a key named after its creation time and 4 random bytes.
func newKey(now time.Time) (fileKey, error) {
	secret := make([]byte, keySize)
	suffix := make([]byte, 4)
	if _, err := rand.Read(secret); err != nil {
		return fileKey{}, err
	}
	if _, err := rand.Read(suffix); err != nil {
		return fileKey{}, err
	}
	id := "aesgcm-" + now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(suffix)
	return fileKey{ID: id, Secret: secret, Created: now.UTC()}, nil
}

// readKeyFile reads and checks the keys file at path: mode 0600 at most,
// valid ids, 32-byte secrets, Current listed.
func readKeyFile(path string) (keyFile, error) {
	st, err := os.Stat(path)
	if err != nil {
		return keyFile{}, err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return keyFile{}, fmt.Errorf("keys file %s has mode %04o: want 0600 (chmod 600 %s)", path, st.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return keyFile{}, err
	}
	var f keyFile
	if err := json.Unmarshal(data, &f); err != nil {
		return keyFile{}, fmt.Errorf("keys file %s: %w", path, err)
	}
	if err := f.check(); err != nil {
		return keyFile{}, fmt.Errorf("keys file %s: %w", path, err)
	}
	return f, nil
}

func (f *keyFile) check() error {
	seen := map[string]bool{}
	for i, k := range f.Keys {
		if err := checkKeyID(k.ID); err != nil {
			return fmt.Errorf("keys[%d]: %w", i, err)
		}
		if len(k.Secret) != keySize {
			return fmt.Errorf("keys[%d] %q: secret is %d bytes, want %d", i, k.ID, len(k.Secret), keySize)
		}
		if seen[k.ID] {
			return fmt.Errorf("keys[%d]: key id %q listed twice", i, k.ID)
		}
		seen[k.ID] = true
	}
	if f.Current != "" && !seen[f.Current] {
		return fmt.Errorf("current: key %q is not listed in keys", f.Current)
	}
	return nil
}

// writeKeyFile replaces the keys file at path atomically, mode 0600, in a
// 0700 directory.
func writeKeyFile(path string, f keyFile) error {
	if err := f.check(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := durable.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write keys file %s: %w", path, err)
	}
	return durable.SyncDir(filepath.Dir(path))
}

// missing reports whether err says the keys file does not exist.
func missing(err error) bool { return errors.Is(err, os.ErrNotExist) }
