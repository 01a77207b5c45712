package auth

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// SecretLister lists the Secrets of one namespace. The API server provides
// it over the datastore.
type SecretLister func(ctx context.Context, namespace string) ([]corev1.Secret, error)

// SecretTokenLookupConfig tunes a SecretTokenLookup; zero values get defaults.
type SecretTokenLookupConfig struct {
	// TTL is how long a loaded index answers hits; a deleted user's token
	// keeps working at most this long. Default 5s.
	TTL time.Duration
	// MissInterval is the least time between two reloads caused by unknown
	// ids, so a flood of made-up tokens costs one list per interval.
	// Default 100ms.
	MissInterval time.Duration
	Logger       *slog.Logger // default slog.Default()
}

// SecretTokenLookup is the TokenLookup over the user Secrets in
// UserNamespace. It keeps an index id -> token built from one list of that
// namespace and reloads it:
//
//   - when it is older than TTL (so revocation takes effect within TTL), and
//   - when an id is missing and the index was loaded before the request
//     arrived (so a token works as soon as `bramble user create` returns);
//     such reloads are at least MissInterval apart and shared by waiters.
//
// Invalidate forces the next lookup to reload, for callers that watch the
// namespace and want revocation at once.
type SecretTokenLookup struct {
	list   SecretLister
	cfg    SecretTokenLookupConfig
	index  atomic.Pointer[tokenIndex]
	reload sync.Mutex // one list at a time
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error
}

type tokenIndex struct {
	byID     map[string]*StoredToken
	loadedAt time.Time // when the list that built it started
}

var _ TokenLookup = (*SecretTokenLookup)(nil)

// NewSecretTokenLookup returns a SecretTokenLookup listing through list.
func NewSecretTokenLookup(list SecretLister, cfg SecretTokenLookupConfig) *SecretTokenLookup {
	if cfg.TTL <= 0 {
		cfg.TTL = 5 * time.Second
	}
	if cfg.MissInterval <= 0 {
		cfg.MissInterval = 100 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &SecretTokenLookup{list: list, cfg: cfg, now: time.Now, sleep: sleepCtx}
}

// LookupUserToken returns the token with id, or an error wrapping
// ErrTokenNotFound.
func (l *SecretTokenLookup) LookupUserToken(ctx context.Context, id string) (*StoredToken, error) {
	arrived := l.now()
	if idx := l.index.Load(); idx != nil && arrived.Sub(idx.loadedAt) < l.cfg.TTL {
		if t, ok := idx.byID[id]; ok {
			return t, nil
		}
	}
	idx, err := l.refresh(ctx, arrived)
	if err != nil {
		return nil, err
	}
	if t, ok := idx.byID[id]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("token id %q: %w", id, ErrTokenNotFound)
}

// Invalidate drops the index; the next lookup lists again.
func (l *SecretTokenLookup) Invalidate() { l.index.Store(nil) }

// refresh returns an index whose list started no earlier than arrived.
func (l *SecretTokenLookup) refresh(ctx context.Context, arrived time.Time) (*tokenIndex, error) {
	l.reload.Lock()
	defer l.reload.Unlock()
	idx := l.index.Load()
	if idx != nil && !idx.loadedAt.Before(arrived) {
		return idx, nil
	}
	if idx != nil {
		if wait := idx.loadedAt.Add(l.cfg.MissInterval).Sub(l.now()); wait > 0 {
			if err := l.sleep(ctx, wait); err != nil {
				return nil, fmt.Errorf("wait to reload user tokens: %w", err)
			}
		}
	}
	return l.load(ctx)
}

func (l *SecretTokenLookup) load(ctx context.Context) (*tokenIndex, error) {
	started := l.now()
	secrets, err := l.list(ctx, UserNamespace)
	if err != nil {
		return nil, fmt.Errorf("list user token secrets in %s: %w", UserNamespace, err)
	}
	idx := &tokenIndex{byID: make(map[string]*StoredToken), loadedAt: started}
	dup := make(map[string]bool)
	for i := range secrets {
		s := &secrets[i]
		if s.Type != UserSecretType {
			continue
		}
		t, err := StoredTokenFromSecret(s)
		if err != nil {
			l.cfg.Logger.Warn("ignoring malformed user token secret", "secret", s.Name, "err", err)
			continue
		}
		if _, seen := idx.byID[t.ID]; seen || dup[t.ID] {
			l.cfg.Logger.Warn("ignoring user tokens sharing an id", "id", t.ID, "secret", s.Name)
			delete(idx.byID, t.ID)
			dup[t.ID] = true
			continue
		}
		idx.byID[t.ID] = t
	}
	l.index.Store(idx)
	return idx, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
