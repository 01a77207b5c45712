package encryption

import (
	"bytes"
	"testing"
)

// FuzzDecrypt feeds the envelope decoder arbitrary stored values (a
// datastore restored from an untrusted snapshot, or a corrupt page): it
// must never panic, and anything it accepts must be plaintext passed
// through or a value that really was sealed.
func FuzzDecrypt(f *testing.F) {
	k := newKeyring(f)
	good, err := k.Encrypt(secretKey, []byte(`{"data":{"a":"Yg=="}}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"kind":"Secret"}`))
	f.Add([]byte(envelopePrefix))
	f.Add(append([]byte(envelopePrefix), 3, 'a', 'b', 'c'))
	f.Add(append([]byte(envelopePrefix), 0))
	f.Add(good[:len(good)-1])
	f.Fuzz(func(t *testing.T, value []byte) {
		plain, err := k.Decrypt(secretKey, value)
		if err != nil {
			return
		}
		if !isEnvelope(value) {
			if !bytes.Equal(plain, value) {
				t.Fatalf("plaintext changed: got %q, want %q", plain, value)
			}
			return
		}
		if !bytes.Equal(value, good) && KeyOf(value) != k.Current() {
			t.Fatalf("accepted a value under unknown key %q", KeyOf(value))
		}
	})
}
