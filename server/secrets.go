package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/encryption"
)

// openSecrets opens the keys file (creating it for a new cluster, with a
// key unless --disable-secrets-encryption) and wraps the datastore so that
// Secrets are encrypted at rest.
func (s *Server) openSecrets(ctx context.Context, cfg Config) error {
	path := encryption.KeysPath(cfg.DataDir)
	keys, created, err := encryption.OpenKeyring(path, !cfg.DisableSecretsEncryption)
	if err != nil {
		return fmt.Errorf("secrets encryption keys: %w", err)
	}
	if created {
		s.log.Info("wrote secrets encryption keys file", "path", path, "enabled", keys.Enabled())
	}
	s.Secrets = encryption.NewStore(s.SQLite, keys, s.log.With("component", "secrets-encryption"))
	s.Store = s.Secrets
	if err := s.Secrets.CheckKeys(ctx); err != nil {
		return fmt.Errorf("secrets encryption: %w", err)
	}
	return nil
}

// migrateSecrets rewrites, in the background, the Secrets that are not
// stored as the keys file wants (plaintext Secrets of a cluster from before
// encryption, or a reencrypt that a stop interrupted). It only reads when
// there is nothing to do. Stop waits for it (bg ends first) before the
// datastore closes.
func (s *Server) migrateSecrets(bg context.Context, admin *encryption.Admin) {
	done := make(chan struct{})
	s.stops = append(s.stops, func() { <-done })
	go func() {
		defer close(done)
		st, err := admin.Status(bg)
		if err != nil || !needsReencrypt(st) {
			return
		}
		s.log.Info("secrets encryption: rewriting Secrets with the current key", "key", s.Secrets.Keys().Current())
		done, err := admin.Reencrypt(bg)
		if err != nil {
			s.log.Error("secrets encryption: reencrypt failed; run bramble secrets-encrypt reencrypt", "err", err)
			return
		}
		s.log.Info("secrets encryption: reencrypt finished", "rewritten", done.Rewritten)
	}()
}

// needsReencrypt reports whether some Secret is not stored with the current
// key (or in plaintext while disabled).
func needsReencrypt(st encryption.Status) bool {
	if st.Stage == encryption.StageReencrypt {
		return true
	}
	stale := st.Unknown
	if st.Enabled {
		stale += st.Plaintext
	}
	for _, k := range st.Keys {
		if !k.Current {
			stale += k.Secrets
		}
	}
	return stale > 0
}

// secretsHandler serves `bramble secrets-encrypt` and starts the online
// migration of Secrets not yet stored as the keys file wants.
func (s *Server) secretsHandler(bg context.Context, authn auth.Authenticator, authz auth.Authorizer) http.Handler {
	admin := encryption.NewAdmin(s.Secrets)
	s.migrateSecrets(bg, admin)
	return encryption.Handler(admin, authn, authz)
}
