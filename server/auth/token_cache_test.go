package auth

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/bramble-edge/bramble/clock/clocktest"
)

// secretStore is an in-memory namespace of Secrets with a list counter.
type secretStore struct {
	mu      sync.Mutex
	secrets map[string]corev1.Secret
	lists   int
	err     error
}

func (s *secretStore) list(_ context.Context, ns string) ([]corev1.Secret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	if s.err != nil {
		return nil, s.err
	}
	var out []corev1.Secret
	for _, sec := range s.secrets {
		if sec.Namespace == ns {
			out = append(out, sec)
		}
	}
	return out, nil
}

func (s *secretStore) put(sec *corev1.Secret) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets[sec.Name] = *sec
}

func (s *secretStore) remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.secrets, name)
}

func (s *secretStore) listCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists
}

func newTestLookup(t testing.TB) (*SecretTokenLookup, *secretStore, *clocktest.Fake) {
	t.Helper()
	store := &secretStore{secrets: make(map[string]corev1.Secret)}
	clock := clocktest.NewFake(time.Unix(1_800_000_000, 0))
	l := NewSecretTokenLookup(store.list, SecretTokenLookupConfig{
		TTL: 5 * time.Second, MissInterval: 100 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	l.now, l.sleep = clock.Now, clock.Sleep
	return l, store, clock
}

func addUser(t testing.TB, store *secretStore, name, role string) (id string) {
	t.Helper()
	s, token, err := NewUserToken(name, role)
	if err != nil {
		t.Fatal(err)
	}
	s.Namespace = UserNamespace
	store.put(s)
	id, _, _ = ParseUserToken(token)
	return id
}

func TestTokenLookupFindsNewUserAtOnce(t *testing.T) {
	l, store, clock := newTestLookup(t)
	ctx := context.Background()
	if _, err := l.LookupUserToken(ctx, "aaaaaa"); !errors.Is(err, ErrTokenNotFound) {
		t.Fatalf("empty store: got %v, want ErrTokenNotFound", err)
	}
	clock.Advance(10 * time.Millisecond) // the user is created right after a reload
	id := addUser(t, store, "alice", RoleViewer)
	clock.Advance(time.Millisecond)
	tok, err := l.LookupUserToken(ctx, id)
	if err != nil || tok.Name != "alice" || tok.Role != RoleViewer {
		t.Fatalf("lookup of new user: got %+v, %v; want alice/viewer", tok, err)
	}
	before := store.listCount()
	for range 10 {
		if _, err := l.LookupUserToken(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if got := store.listCount(); got != before {
		t.Errorf("lists for 10 cached hits: got %d, want 0", got-before)
	}
}

func TestTokenLookupRevocationWithinTTL(t *testing.T) {
	l, store, clock := newTestLookup(t)
	ctx := context.Background()
	id := addUser(t, store, "bob", RoleAdmin)
	if _, err := l.LookupUserToken(ctx, id); err != nil {
		t.Fatal(err)
	}
	store.remove(UserSecretPrefix + "bob")
	clock.Advance(4 * time.Second)
	if _, err := l.LookupUserToken(ctx, id); err != nil {
		t.Errorf("within TTL: got %v, want the cached token (revocation may lag up to TTL)", err)
	}
	clock.Advance(time.Second)
	if _, err := l.LookupUserToken(ctx, id); !errors.Is(err, ErrTokenNotFound) {
		t.Errorf("at TTL: got %v, want ErrTokenNotFound", err)
	}
}

func TestTokenLookupInvalidate(t *testing.T) {
	l, store, _ := newTestLookup(t)
	ctx := context.Background()
	id := addUser(t, store, "carol", RoleViewer)
	if _, err := l.LookupUserToken(ctx, id); err != nil {
		t.Fatal(err)
	}
	store.remove(UserSecretPrefix + "carol")
	l.Invalidate()
	if _, err := l.LookupUserToken(ctx, id); !errors.Is(err, ErrTokenNotFound) {
		t.Errorf("after Invalidate: got %v, want ErrTokenNotFound", err)
	}
}

func TestTokenLookupMissesAreRateLimited(t *testing.T) {
	l, store, clock := newTestLookup(t)
	ctx := context.Background()
	addUser(t, store, "dave", RoleViewer)
	start := clock.Now()
	for range 20 {
		l.LookupUserToken(ctx, "zzzzzz") // unknown: every miss wants a reload
		clock.Advance(time.Millisecond)
	}
	elapsed := clock.Now().Sub(start)
	// Each reload waits until MissInterval after the previous one, so the
	// fake clock, advanced by the waits, bounds the number of lists.
	if max := int(elapsed/(100*time.Millisecond)) + 1; store.listCount() > max {
		t.Errorf("lists for 20 misses over %v: got %d, want at most %d", elapsed, store.listCount(), max)
	}
}

func TestTokenLookupSkipsMalformedAndDuplicates(t *testing.T) {
	l, store, _ := newTestLookup(t)
	ctx := context.Background()
	good := addUser(t, store, "erin", RoleViewer)
	bad, _, _ := NewUserToken("frank", RoleViewer)
	bad.Data["role"] = []byte("root")
	store.put(bad)
	dup1, _, _ := NewUserToken("gina", RoleViewer)
	dup2, _, _ := NewUserToken("hank", RoleAdmin)
	dup2.Data["id"] = dup1.Data["id"]
	store.put(dup1)
	store.put(dup2)
	other := &corev1.Secret{Type: corev1.SecretTypeOpaque}
	other.Name, other.Namespace = "unrelated", UserNamespace
	store.put(other)

	if _, err := l.LookupUserToken(ctx, good); err != nil {
		t.Errorf("good token: %v", err)
	}
	if _, err := l.LookupUserToken(ctx, string(bad.Data["id"])); !errors.Is(err, ErrTokenNotFound) {
		t.Errorf("malformed secret: got %v, want ErrTokenNotFound", err)
	}
	if _, err := l.LookupUserToken(ctx, string(dup1.Data["id"])); !errors.Is(err, ErrTokenNotFound) {
		t.Errorf("duplicate id: got %v, want ErrTokenNotFound", err)
	}
}

func TestTokenLookupListFailure(t *testing.T) {
	l, store, _ := newTestLookup(t)
	store.err = errors.New("disk on fire")
	_, err := l.LookupUserToken(context.Background(), "abcdef")
	if err == nil || errors.Is(err, ErrTokenNotFound) {
		t.Fatalf("got %v, want a list failure that is not ErrTokenNotFound", err)
	}
}

func TestTokenLookupConcurrentMissesShareOneList(t *testing.T) {
	l, store, clock := newTestLookup(t)
	ctx := context.Background()
	id := addUser(t, store, "ivy", RoleViewer)
	l.LookupUserToken(ctx, id) // index loaded at the current time
	before := store.listCount()
	clock.Advance(time.Millisecond)
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.LookupUserToken(ctx, "zzzzzz")
		}()
	}
	wg.Wait()
	// The clock moves only in the first reload's wait, and that reload
	// starts at the moved time, so it is no older than any arrival: all 32
	// misses share it.
	if got := store.listCount() - before; got != 1 {
		t.Fatalf("lists for 32 concurrent misses: got %d, want 1", got)
	}
}
