package satoken

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/datastore"
)

// Objects reads the objects tokens are bound to; the registry is one. A
// missing object is an apierrors NotFound.
type Objects interface {
	Get(ctx context.Context, res *api.Resource, ns, name string) (api.Object, error)
}

// Config configures Tokens; zero values get defaults.
type Config struct {
	// Dir holds KeyFile (the server's TLS directory). Required.
	Dir string
	// Store publishes the public keys. Required.
	Store datastore.Store
	// Objects finds ServiceAccounts, Pods, Secrets and Nodes. Required.
	Objects Objects
	// Issuer is the iss of bound tokens (DefaultIssuer).
	Issuer string
	// Audiences the API accepts ([Issuer]); a TokenRequest without
	// audiences gets these.
	Audiences []string
	// MaxTTL caps a TokenRequest's expirationSeconds (48 h); a retired key
	// stays trusted this long.
	MaxTTL time.Duration
	Now    func() time.Time
	Logger *slog.Logger
}

// Tokens issues ServiceAccount tokens and verifies them.
type Tokens struct {
	cfg    Config
	key    *signingKey
	signer jose.Signer
	keys   *keySet
	// verified skips the RSA verification of tokens seen in the last 10 s.
	verified verifiedCache
}

// New loads (or makes) the signing key and publishes its public half.
func New(ctx context.Context, cfg Config) (*Tokens, error) {
	if cfg.Dir == "" || cfg.Store == nil || cfg.Objects == nil {
		return nil, errors.New("satoken: Dir, Store and Objects are required")
	}
	if cfg.Issuer == "" {
		cfg.Issuer = DefaultIssuer
	}
	if len(cfg.Audiences) == 0 {
		cfg.Audiences = []string{cfg.Issuer}
	}
	if cfg.MaxTTL <= 0 {
		cfg.MaxTTL = 48 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	key, err := loadOrCreateKey(cfg.Dir)
	if err != nil {
		return nil, err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key.priv},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), key.kid))
	if err != nil {
		return nil, fmt.Errorf("service account signer: %w", err)
	}
	t := &Tokens{cfg: cfg, key: key, signer: signer,
		keys: &keySet{store: cfg.Store, now: cfg.Now, maxTTL: cfg.MaxTTL}}
	if err := t.keys.publish(ctx, cfg.Dir, key); err != nil {
		return nil, err
	}
	return t, nil
}

// Issuer is the iss of bound tokens.
func (t *Tokens) Issuer() string { return t.cfg.Issuer }

// KeyID is the id of the key this server signs with.
func (t *Tokens) KeyID() string { return t.key.kid }
