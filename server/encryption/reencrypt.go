package encryption

import (
	"context"
	"errors"
	"fmt"

	"github.com/bramble-edge/bramble/datastore"
)

// pageSize bounds one list page of the reencrypt walk.
const pageSize = 500

// maxConflicts bounds retries of one Secret that users keep updating.
const maxConflicts = 10

// Reencrypted counts what a reencrypt did.
type Reencrypted struct {
	Rewritten int `json:"rewritten"` // written again with the current key (or plaintext when disabled)
	Current   int `json:"current"`   // already as the current key wants
}

// reencrypt rewrites every Secret whose stored form is not the current
// key's (or plaintext while disabled) through the store, with a revision
// check so a concurrent user write is never lost.
func (s *Store) reencrypt(ctx context.Context) (Reencrypted, error) {
	var done Reencrypted
	opts := datastore.ListOptions{Limit: pageSize}
	for {
		page, err := s.Store.List(ctx, SecretsPrefix, opts)
		if err != nil {
			return done, fmt.Errorf("reencrypt: list secrets: %w", err)
		}
		for _, kv := range page.Items {
			wrote, err := s.rewrite(ctx, kv)
			if err != nil {
				return done, err
			}
			if wrote {
				done.Rewritten++
			} else {
				done.Current++
			}
		}
		if page.Continue == "" {
			return done, nil
		}
		opts.Continue = page.Continue
	}
}

// rewrite writes kv (as stored) again with the current key unless it is
// already so; on a conflict it reads the key again and retries.
func (s *Store) rewrite(ctx context.Context, kv *datastore.KeyValue) (bool, error) {
	for range maxConflicts {
		if KeyOf(kv.Value) == s.keys.Current() {
			return false, nil
		}
		plain, err := s.keys.Decrypt(kv.Key, kv.Value)
		if err != nil {
			return false, fmt.Errorf("reencrypt: %w", err)
		}
		_, err = s.Update(ctx, kv.Key, plain, kv.ModRevision)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, datastore.ErrNotFound):
			return false, nil
		case !errors.Is(err, datastore.ErrConflict):
			return false, fmt.Errorf("reencrypt %s: %w", kv.Key, err)
		}
		if kv, err = s.Store.Get(ctx, kv.Key); errors.Is(err, datastore.ErrNotFound) {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("reencrypt %s: %w", kv.Key, err)
		}
	}
	return false, fmt.Errorf("reencrypt %s: still conflicting after %d attempts", kv.Key, maxConflicts)
}

// countByKey counts the Secrets stored under each key id ("" = plaintext).
func (s *Store) countByKey(ctx context.Context) (map[string]int, error) {
	counts := map[string]int{}
	opts := datastore.ListOptions{Limit: pageSize}
	for {
		page, err := s.Store.List(ctx, SecretsPrefix, opts)
		if err != nil {
			return nil, fmt.Errorf("list secrets: %w", err)
		}
		for _, kv := range page.Items {
			counts[KeyOf(kv.Value)]++
		}
		if page.Continue == "" {
			return counts, nil
		}
		opts.Continue = page.Continue
	}
}

// CheckKeys opens one stored Secret per key id, so a server with a keys
// file that misses a key (or holds other material under its id) refuses to
// start with an error naming the key, rather than failing every list.
func (s *Store) CheckKeys(ctx context.Context) error {
	tried := map[string]bool{}
	opts := datastore.ListOptions{Limit: pageSize}
	for {
		page, err := s.Store.List(ctx, SecretsPrefix, opts)
		if err != nil {
			return fmt.Errorf("list secrets: %w", err)
		}
		for _, kv := range page.Items {
			id := KeyOf(kv.Value)
			if id == "" || tried[id] {
				continue
			}
			tried[id] = true
			if _, err := s.keys.Decrypt(kv.Key, kv.Value); err != nil {
				return err
			}
		}
		if page.Continue == "" {
			return nil
		}
		opts.Continue = page.Continue
	}
}
