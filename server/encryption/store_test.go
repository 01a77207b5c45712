package encryption

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/datastore"
)

// newStore is a real SQLite store in a temp dir wrapped with a new keyring.
func newStore(t testing.TB) (*Store, *datastore.SQLite) {
	t.Helper()
	raw, err := datastore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "state.db"), datastore.SQLiteConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return NewStore(raw, newKeyring(t), nil), raw
}

func TestStoreEncryptsOnlySecrets(t *testing.T) {
	ctx := context.Background()
	s, raw := newStore(t)
	value := []byte(`{"data":{"pw":"c2VjcmV0"}}`)
	rev, err := s.Create(ctx, secretKey, value)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "/registry/core/configmaps/default/c", value); err != nil {
		t.Fatal(err)
	}
	stored, _ := raw.Get(ctx, secretKey)
	if bytes.Contains(stored.Value, []byte("c2VjcmV0")) || KeyOf(stored.Value) != s.Keys().Current() {
		t.Fatalf("stored secret %q: want ciphertext under %q", stored.Value, s.Keys().Current())
	}
	if cm, _ := raw.Get(ctx, "/registry/core/configmaps/default/c"); !bytes.Equal(cm.Value, value) {
		t.Fatalf("a ConfigMap was changed on its way in: %q", cm.Value)
	}
	got, err := s.Get(ctx, secretKey)
	if err != nil || !bytes.Equal(got.Value, value) || got.ModRevision != rev {
		t.Fatalf("Get: got %+v, %v, want %q at %d", got, err, value, rev)
	}
	for _, prefix := range []string{"/registry/", SecretsPrefix, SecretsPrefix + "default/"} {
		l, err := s.List(ctx, prefix, datastore.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range l.Items {
			if !bytes.Equal(kv.Value, value) {
				t.Fatalf("List %s: %s holds %q, want %q", prefix, kv.Key, kv.Value, value)
			}
		}
	}
	_, prev, err := s.Delete(ctx, secretKey, 0)
	if err != nil || !bytes.Equal(prev.Value, value) {
		t.Fatalf("Delete: got prev %+v, %v, want plaintext", prev, err)
	}
}

func TestWatchSeesPlaintext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, _ := newStore(t)
	ch, err := s.Watch(ctx, "/registry/", 0)
	if err != nil {
		t.Fatal(err)
	}
	v1, v2 := []byte(`{"data":{"a":"djE="}}`), []byte(`{"data":{"a":"djI="}}`)
	rev, err := s.Create(ctx, secretKey, v1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, secretKey, v2, rev); err != nil {
		t.Fatal(err)
	}
	var events []datastore.Event
	for len(events) < 2 {
		select {
		case batch := <-ch:
			events = append(events, batch...)
		case <-ctx.Done():
			t.Fatalf("got %d events, want 2", len(events))
		}
	}
	if !bytes.Equal(events[0].KV.Value, v1) || !bytes.Equal(events[1].KV.Value, v2) || !bytes.Equal(events[1].PrevKV.Value, v1) {
		t.Fatalf("watch delivered %q, %q (prev %q): want plaintext", events[0].KV.Value, events[1].KV.Value, events[1].PrevKV.Value)
	}
}

func TestRotateAndReencrypt(t *testing.T) {
	ctx := context.Background()
	s, raw := newStore(t)
	admin := NewAdmin(s)
	keys := []string{secretKey, SecretsPrefix + "kube-system/t", SecretsPrefix + "default/u"}
	for _, k := range keys {
		if _, err := s.Create(ctx, k, []byte(`{"data":{"k":"`+k+`"}}`)); err != nil {
			t.Fatal(err)
		}
	}
	first := s.Keys().Current()
	before, err := admin.Status(ctx)
	if err != nil || len(before.KeysHash) != 16 {
		t.Fatalf("status: got %+v, %v, want a keys hash", before, err)
	}
	done, err := admin.RotateKeys(ctx, false)
	if err != nil || done.Rewritten != len(keys) {
		t.Fatalf("rotate-keys: got %+v, %v, want %d rewritten", done, err, len(keys))
	}
	second := s.Keys().Current()
	if second == first {
		t.Fatal("rotate-keys kept the current key")
	}
	assertStoredUnder(t, raw, keys, second)
	if again, err := admin.Reencrypt(ctx); err != nil || again.Rewritten != 0 || again.Current != len(keys) {
		t.Fatalf("reencrypt with nothing to do: got %+v, %v", again, err)
	}
	st, err := admin.Status(ctx)
	if err != nil || len(st.Keys) != 2 || st.Keys[0].Secrets != len(keys) || st.Keys[1].Secrets != 0 ||
		st.Stage != StageFinished || st.KeysHash == before.KeysHash {
		t.Fatalf("status after rotation: got %+v, %v", st, err)
	}
	if _, err := admin.RotateKeys(ctx, true); err != nil {
		t.Fatal(err)
	}
	if st, _ := admin.Status(ctx); len(st.Keys) != 1 || st.Keys[0].ID != s.Keys().Current() {
		t.Fatalf("rotate-keys --prune left keys %+v, want only the current one", st.Keys)
	}
	for _, k := range keys {
		if kv, err := s.Get(ctx, k); err != nil || !strings.Contains(string(kv.Value), k) {
			t.Fatalf("after rotations %s reads %v, %v", k, kv, err)
		}
	}
}

func TestDisableThenEnable(t *testing.T) {
	ctx := context.Background()
	s, raw := newStore(t)
	admin := NewAdmin(s)
	if _, err := s.Create(ctx, secretKey, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if done, err := admin.Disable(ctx); err != nil || done.Rewritten != 1 {
		t.Fatalf("disable: got %+v, %v", done, err)
	}
	assertStoredUnder(t, raw, []string{secretKey}, "")
	if _, err := admin.Enable(ctx); err != nil {
		t.Fatal(err)
	}
	assertStoredUnder(t, raw, []string{secretKey}, s.Keys().Current())
}

func assertStoredUnder(t *testing.T, raw datastore.Store, keys []string, keyID string) {
	t.Helper()
	for _, k := range keys {
		kv, err := raw.Get(context.Background(), k)
		if err != nil {
			t.Fatal(err)
		}
		if got := KeyOf(kv.Value); got != keyID {
			t.Fatalf("%s is stored under key %q, want %q", k, got, keyID)
		}
	}
}
