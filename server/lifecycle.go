package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/join"
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

// revokeDeletedNodes revokes a node's certificate the moment its Node object
// is deleted, for the API and the broker alike.
func revokeDeletedNodes(ctx context.Context, log *slog.Logger, store datastore.Store, certs *join.NodeCertRegistry) error {
	nodes, _ := api.Lookup("", "v1", "nodes")
	rev, err := store.CurrentRevision(ctx)
	if err != nil {
		return err
	}
	go func() {
		for ctx.Err() == nil {
			events, err := store.Watch(ctx, nodes.Prefix(""), rev)
			if errors.Is(err, datastore.ErrCompacted) {
				// Fell so far behind that history is gone: deletions in the
				// gap are missed (logged), later ones are still revoked.
				log.Error("node deletions lost to compaction; their certificates stay valid until they expire", "after-rev", rev)
				if rev, err = store.CurrentRevision(ctx); err == nil {
					continue
				}
			}
			if err != nil {
				if ctx.Err() == nil {
					log.Error("watch nodes for certificate revocation", "err", err)
				}
				return
			}
			for batch := range events {
				for _, ev := range batch {
					rev = ev.Revision
					if ev.Type == datastore.EventDelete {
						name := strings.TrimPrefix(ev.KV.Key, nodes.Prefix(""))
						if err := certs.Revoke(ctx, name); err != nil {
							log.Error("revoke node certificate", "node", name, "err", err)
						}
					}
				}
			}
		}
	}()
	return nil
}
