package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/auth"
)

// lockDataDir takes an exclusive flock on <server dir>/lock so a second
// server on the same data dir refuses to start instead of corrupting it.
func lockDataDir(dir string) (func(), error) {
	path := filepath.Join(dir, "lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("data dir %s is in use by another bramble server (pid %s); stop it first or use another --data-dir",
				filepath.Dir(dir), strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }, nil
}

// DataDirInUse reports whether a server holds the data dir's lock, for
// commands (snapshot restore) that must not run beside a live server.
func DataDirInUse(dataDir string) bool {
	dir := filepath.Join(dataDir, "server")
	if _, err := os.Stat(filepath.Join(dir, "lock")); err != nil {
		return false // no server has ever run here
	}
	unlock, err := lockDataDir(dir)
	if err != nil {
		return true
	}
	unlock()
	return false
}

// secretLister lists a namespace's Secrets straight from the datastore, for
// the bearer-token cache.
func secretLister(store datastore.Store) auth.SecretLister {
	res, _ := api.Lookup("", "v1", "secrets")
	return func(ctx context.Context, namespace string) ([]corev1.Secret, error) {
		page, err := store.List(ctx, res.Prefix(namespace), datastore.ListOptions{})
		if err != nil {
			return nil, err
		}
		out := make([]corev1.Secret, 0, len(page.Items))
		for _, kv := range page.Items {
			var s corev1.Secret
			if err := json.Unmarshal(kv.Value, &s); err != nil {
				return nil, fmt.Errorf("decode secret %s: %w", kv.Key, err)
			}
			out = append(out, s)
		}
		return out, nil
	}
}
