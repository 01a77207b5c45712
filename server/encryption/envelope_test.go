package encryption

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newKeyring opens a fresh keys file in a temp dir, encryption on.
func newKeyring(t testing.TB) *Keyring {
	t.Helper()
	k, created, err := OpenKeyring(filepath.Join(t.TempDir(), "cred", KeysFileName), true)
	if err != nil {
		t.Fatal(err)
	}
	if !created || !k.Enabled() {
		t.Fatalf("got created %v enabled %v, want a new enabled keys file", created, k.Enabled())
	}
	return k
}

const secretKey = SecretsPrefix + "default/s"

func TestEnvelopeRoundTrip(t *testing.T) {
	k := newKeyring(t)
	plain := []byte(`{"data":{"pw":"aHVudGVyMg=="}}`)
	sealedValue, err := k.Encrypt(secretKey, plain)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealedValue, []byte("aHVudGVyMg")) || !isEnvelope(sealedValue) {
		t.Fatalf("sealed value %q holds the plaintext or no envelope", sealedValue)
	}
	if got := KeyOf(sealedValue); got != k.Current() {
		t.Fatalf("KeyOf: got %q, want %q", got, k.Current())
	}
	again, _ := k.Encrypt(secretKey, plain)
	if bytes.Equal(again, sealedValue) {
		t.Fatal("two writes of one value gave the same ciphertext: data keys or nonces repeat")
	}
	got, err := k.Decrypt(secretKey, sealedValue)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Decrypt: got %q, %v, want %q", got, err, plain)
	}
	if got, err := k.Decrypt(secretKey, plain); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("plaintext must pass through: got %q, %v", got, err)
	}
}

func TestEnvelopeRefusesTamperingAndMoves(t *testing.T) {
	k := newKeyring(t)
	v, err := k.Encrypt(secretKey, []byte("value"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Decrypt(SecretsPrefix+"default/other", v); err == nil || !strings.Contains(err.Error(), k.Current()) {
		t.Fatalf("moved ciphertext: got %v, want an authentication error naming %q", err, k.Current())
	}
	flipped := bytes.Clone(v)
	flipped[len(flipped)-1] ^= 1
	if _, err := k.Decrypt(secretKey, flipped); err == nil {
		t.Fatal("a flipped bit decrypted")
	}
	if _, err := k.Decrypt(secretKey, v[:len(v)-30]); !errors.Is(err, ErrMalformed) {
		t.Fatalf("truncated: got %v, want ErrMalformed", err)
	}
}

func TestWrongKeyNamesTheKeyID(t *testing.T) {
	writer, reader := newKeyring(t), newKeyring(t)
	v, err := writer.Encrypt(secretKey, []byte("value"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = reader.Decrypt(secretKey, v)
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), writer.Current()) ||
		!strings.Contains(err.Error(), reader.Path()) {
		t.Fatalf("missing key: got %v, want ErrUnknownKey naming %q and %s", err, writer.Current(), reader.Path())
	}
	// Same id, other key material: the file was edited or mixed up.
	f := reader.state.Load().file
	f.Keys[0].ID, f.Current = writer.Current(), writer.Current()
	if err := writeKeyFile(reader.Path(), f); err != nil {
		t.Fatal(err)
	}
	reader.lastReload.Store(0)
	reader.reload()
	_, err = reader.Decrypt(secretKey, v)
	if err == nil || !strings.Contains(err.Error(), `key "`+writer.Current()+`" does not open`) {
		t.Fatalf("wrong key material: got %v, want an error naming key %q", err, writer.Current())
	}
}

func TestKeysFileChecks(t *testing.T) {
	k := newKeyring(t)
	if st, _ := os.Stat(k.Path()); st.Mode().Perm() != 0o600 {
		t.Fatalf("keys file mode: got %04o, want 0600", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Dir(k.Path())); st.Mode().Perm() != 0o700 {
		t.Fatalf("cred dir mode: got %04o, want 0700", st.Mode().Perm())
	}
	if err := os.Chmod(k.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenKeyring(k.Path(), true); err == nil || !strings.Contains(err.Error(), "want 0600") {
		t.Fatalf("world-readable keys file: got %v, want a refusal naming the mode", err)
	}
	for name, body := range map[string]string{
		"short secret":   `{"current":"a","keys":[{"id":"a","secret":"AAAA"}]}`,
		"current absent": `{"current":"b","keys":[]}`,
		"bad id":         `{"keys":[{"id":"a/b","secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}]}`,
	} {
		path := filepath.Join(t.TempDir(), KeysFileName)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := OpenKeyring(path, true); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: got %v, want an error naming %s", name, err, path)
		}
	}
}

func TestDisabledKeyringWritesPlaintext(t *testing.T) {
	k, _, err := OpenKeyring(filepath.Join(t.TempDir(), KeysFileName), false)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := k.Encrypt(secretKey, []byte("plain")); err != nil || string(v) != "plain" || k.Enabled() {
		t.Fatalf("disabled: got %q, %v, enabled %v", v, err, k.Enabled())
	}
}
