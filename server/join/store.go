package join

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/datastore"
	nodejoin "github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/registry"
)

// TokenStoreConfig tunes a TokenStore; zero values get defaults.
type TokenStoreConfig struct {
	Now    func() time.Time // default time.Now; tests move the clock
	Logger *slog.Logger     // default slog.Default()
}

// TokenStore keeps join tokens as Secrets (the server's side; the CLI goes
// through the API with TokenClient). It reads the datastore directly and
// writes through the registry, admitted like any user's Secret. Tokens are
// found by id through the Secret's name, one Get.
type TokenStore struct {
	store   datastore.Store
	objects *registry.Client
	now     func() time.Time
	log     *slog.Logger
}

// NewTokenStore returns a TokenStore reading store and writing through
// objects.
func NewTokenStore(store datastore.Store, objects *registry.Client, cfg TokenStoreConfig) *TokenStore {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &TokenStore{store: store, objects: objects, now: cfg.Now, log: cfg.Logger}
}

// maxIDAttempts bounds retries when a drawn id is taken.
const maxIDAttempts = 5

// Create makes and stores a new token for the CA with hash caHash; ttl 0
// means it never expires. The returned token carries the secret.
func (s *TokenStore) Create(ctx context.Context, caHash string, ttl time.Duration, description string) (nodejoin.Token, error) {
	for attempt := 1; ; attempt++ {
		secret, tok, err := NewTokenSecret(caHash, ttl, description, s.now())
		if err != nil {
			return nodejoin.Token{}, err
		}
		_, err = s.objects.Create(ctx, secret)
		if apierrors.IsAlreadyExists(err) && attempt < maxIDAttempts {
			continue
		}
		if err != nil {
			return nodejoin.Token{}, fmt.Errorf("create join token: %w", err)
		}
		return tok, nil
	}
}

// Get returns the token with id, or an error wrapping
// nodejoin.ErrTokenNotFound.
func (s *TokenStore) Get(ctx context.Context, id string) (*TokenInfo, error) {
	if nodejoin.CheckID(id) != nil {
		return nil, notFound(id)
	}
	sec, err := getSecret(ctx, s.store, TokenNamespace, TokenSecretPrefix+id)
	if errors.Is(err, datastore.ErrNotFound) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("join token %s: %w", id, err)
	}
	t, err := TokenFromSecret(sec)
	if err != nil {
		return nil, fmt.Errorf("join token %s: %w", id, err)
	}
	return t, nil
}

// Verify checks a presented token id and secret. It returns nil when the
// token exists, the secret's hash matches (constant-time compare) and it
// has not expired; otherwise a *nodejoin.Error whose Kind is
// ErrTokenNotFound, ErrTokenSecret or ErrTokenExpired, or a plain error when
// the datastore fails.
func (s *TokenStore) Verify(ctx context.Context, id, secret string) error {
	_, err := s.Check(ctx, id, secret)
	return err
}

// Check is Verify returning the token, whose usages the join checks.
func (s *TokenStore) Check(ctx context.Context, id, secret string) (*TokenInfo, error) {
	t, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(hashSecret(secret)), []byte(t.SecretHash)) != 1 {
		return nil, &nodejoin.Error{Kind: nodejoin.ErrTokenSecret, Msg: fmt.Sprintf("token %s: secret does not match", id)}
	}
	if t.Expired(s.now()) {
		return nil, &nodejoin.Error{Kind: nodejoin.ErrTokenExpired,
			Msg: fmt.Sprintf("token %s expired at %s", id, t.Expires.UTC().Format(time.RFC3339))}
	}
	return t, nil
}

func notFound(id string) error {
	return &nodejoin.Error{Kind: nodejoin.ErrTokenNotFound, Msg: fmt.Sprintf("token %s not found: deleted or never created", id)}
}

// List returns every token, sorted by creation time then id. Secrets of
// the token type that do not read back are skipped with a warning.
func (s *TokenStore) List(ctx context.Context) ([]TokenInfo, error) {
	prefix := secrets.Key(TokenNamespace, TokenSecretPrefix)
	var out []TokenInfo
	opts := datastore.ListOptions{}
	for {
		res, err := s.store.List(ctx, prefix, opts)
		if err != nil {
			return nil, fmt.Errorf("list join tokens: %w", err)
		}
		for _, kv := range res.Items {
			sec, err := decodeSecret(kv)
			if err == nil && sec.Type == TokenSecretType {
				var t *TokenInfo
				if t, err = TokenFromSecret(sec); err == nil {
					out = append(out, *t)
				}
			}
			if err != nil {
				s.log.Warn("skipping unreadable join token secret", "key", kv.Key, "err", err)
			}
		}
		if res.Continue == "" {
			break
		}
		opts = datastore.ListOptions{Revision: res.Revision, Continue: res.Continue}
	}
	sortTokens(out)
	return out, nil
}

func sortTokens(ts []TokenInfo) {
	sort.Slice(ts, func(i, j int) bool {
		if !ts[i].Created.Equal(ts[j].Created) {
			return ts[i].Created.Before(ts[j].Created)
		}
		return ts[i].ID < ts[j].ID
	})
}

// Delete removes the token with id; joins with it fail from then on. An
// unknown id gives an error wrapping nodejoin.ErrTokenNotFound.
func (s *TokenStore) Delete(ctx context.Context, id string) error {
	if nodejoin.CheckID(id) != nil {
		return notFound(id)
	}
	err := s.objects.Delete(ctx, secrets, TokenNamespace, TokenSecretPrefix+id, controllers.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return notFound(id)
	}
	if err != nil {
		return fmt.Errorf("delete join token %s: %w", id, err)
	}
	return nil
}
