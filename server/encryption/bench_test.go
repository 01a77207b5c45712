package encryption

import (
	"context"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

// secretJSON is a stored Secret of about 1 KiB, as the registry writes it.
var secretJSON = []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s","namespace":"default"},"type":"Opaque","data":{"tls.key":"` +
	base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 700))) + `"}}`)

// benchStores runs fn on a real SQLite store, bare and wrapped with
// encryption on, so the two figures differ only by the envelope.
func benchStores(b *testing.B, fn func(b *testing.B, s datastore.Store)) {
	for _, enc := range []bool{false, true} {
		name := "plaintext"
		if enc {
			name = "aesgcm"
		}
		b.Run(name, func(b *testing.B) {
			raw, err := datastore.OpenSQLite(context.Background(), filepath.Join(b.TempDir(), "state.db"), datastore.SQLiteConfig{})
			if err != nil {
				b.Fatal(err)
			}
			defer raw.Close()
			var s datastore.Store = raw
			if enc {
				s = NewStore(raw, newKeyring(b), nil)
			}
			b.SetBytes(int64(len(secretJSON)))
			fn(b, s)
		})
	}
}

func BenchmarkSecretCreate(b *testing.B) {
	benchStores(b, func(b *testing.B, s datastore.Store) {
		ctx := context.Background()
		for i := 0; b.Loop(); i++ {
			if _, err := s.Create(ctx, fmt.Sprintf("%sdefault/s%d", SecretsPrefix, i), secretJSON); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSecretGet(b *testing.B) {
	benchStores(b, func(b *testing.B, s datastore.Store) {
		ctx := context.Background()
		const n = 100
		for i := range n {
			if _, err := s.Create(ctx, fmt.Sprintf("%sdefault/s%d", SecretsPrefix, i), secretJSON); err != nil {
				b.Fatal(err)
			}
		}
		for i := 0; b.Loop(); i++ {
			if _, err := s.Get(ctx, fmt.Sprintf("%sdefault/s%d", SecretsPrefix, i%n)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEnvelope is the envelope alone: seal and open one Secret.
func BenchmarkEnvelope(b *testing.B) {
	k := newKeyring(b)
	b.SetBytes(int64(len(secretJSON)))
	for b.Loop() {
		v, err := k.Encrypt(secretKey, secretJSON)
		if err == nil {
			_, err = k.Decrypt(secretKey, v)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReencrypt rewrites 1,000 Secrets with a new key per op (k3s
// documents about 5 Secrets a second for its reencrypt).
func BenchmarkReencrypt(b *testing.B) {
	s, _ := newStore(b)
	ctx := context.Background()
	const n = 1000
	for i := range n {
		if _, err := s.Create(ctx, fmt.Sprintf("%sdefault/s%d", SecretsPrefix, i), secretJSON); err != nil {
			b.Fatal(err)
		}
	}
	admin := NewAdmin(s)
	for b.Loop() {
		done, err := admin.RotateKeys(ctx, true)
		if err != nil || done.Rewritten != n {
			b.Fatalf("rotate-keys: %+v, %v", done, err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "secrets/s")
}
