package encryption

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// An envelope is how an encrypted value sits in the datastore:
//
//	"bramble:enc:v1:" | len(keyID) (1 byte) | keyID | wrapped data key | nonce | ciphertext
//
// Each write draws a fresh 32-byte data key (DEK) and seals the value with
// it (AES-256-GCM, the datastore key as additional data, so a ciphertext
// moved under another Secret's key fails to open). The DEK is itself sealed
// with the key-encryption key (KEK) named by keyID (AES-256-GCM, keyID as
// additional data): wrapped = nonce | sealed DEK | tag. Values without the
// prefix are plaintext (written before encryption was enabled, or while it
// is disabled); JSON objects never start with it.
const envelopePrefix = "bramble:enc:v1:"

const (
	keySize     = 32
	nonceSize   = 12
	tagSize     = 16
	wrappedSize = nonceSize + keySize + tagSize
	maxKeyIDLen = 64
)

// ErrMalformed: a value carries the envelope prefix but not a well-formed
// envelope after it.
var ErrMalformed = errors.New("malformed encrypted value")

// envelope is a parsed envelope; its slices alias the stored value.
type envelope struct {
	keyID      string
	wrappedDEK []byte
	nonce      []byte
	ciphertext []byte
}

// isEnvelope reports whether value is encrypted (carries the prefix).
func isEnvelope(value []byte) bool {
	return bytes.HasPrefix(value, []byte(envelopePrefix))
}

// parseEnvelope splits value (which carries the prefix) into its parts.
func parseEnvelope(value []byte) (envelope, error) {
	rest := value[len(envelopePrefix):]
	if len(rest) < 1 {
		return envelope{}, fmt.Errorf("%w: no key id", ErrMalformed)
	}
	n := int(rest[0])
	rest = rest[1:]
	if n == 0 || n > maxKeyIDLen || len(rest) < n {
		return envelope{}, fmt.Errorf("%w: key id length %d", ErrMalformed, n)
	}
	e := envelope{keyID: string(rest[:n])}
	if err := checkKeyID(e.keyID); err != nil {
		return envelope{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	rest = rest[n:]
	if len(rest) < wrappedSize+nonceSize+tagSize {
		return envelope{}, fmt.Errorf("%w: %d bytes after key id %q, want at least %d",
			ErrMalformed, len(rest), e.keyID, wrappedSize+nonceSize+tagSize)
	}
	e.wrappedDEK, rest = rest[:wrappedSize], rest[wrappedSize:]
	e.nonce, e.ciphertext = rest[:nonceSize], rest[nonceSize:]
	return e, nil
}

// seal encrypts plaintext for the datastore key storageKey under kek,
// named keyID, with a fresh data key.
func seal(kek cipher.AEAD, keyID, storageKey string, plaintext []byte) ([]byte, error) {
	var dek [keySize]byte
	nonces := make([]byte, 2*nonceSize)
	if _, err := rand.Read(dek[:]); err != nil {
		return nil, err
	}
	if _, err := rand.Read(nonces); err != nil {
		return nil, err
	}
	data, err := newAEAD(dek[:])
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(envelopePrefix)+1+len(keyID)+wrappedSize+nonceSize+len(plaintext)+tagSize)
	out = append(out, envelopePrefix...)
	out = append(out, byte(len(keyID)))
	out = append(out, keyID...)
	out = append(out, nonces[:nonceSize]...)
	out = kek.Seal(out, nonces[:nonceSize], dek[:], []byte(keyID))
	out = append(out, nonces[nonceSize:]...)
	return data.Seal(out, nonces[nonceSize:], plaintext, []byte(storageKey)), nil
}

// open decrypts e, stored under storageKey, with kek (the key e names).
func open(kek cipher.AEAD, e envelope, storageKey string) ([]byte, error) {
	dek, err := kek.Open(nil, e.wrappedDEK[:nonceSize], e.wrappedDEK[nonceSize:], []byte(e.keyID))
	if err != nil {
		return nil, fmt.Errorf("key %q does not open the data key (wrong key material for that id?)", e.keyID)
	}
	data, err := newAEAD(dek)
	if err != nil {
		return nil, err
	}
	plain, err := data.Open(nil, e.nonce, e.ciphertext, []byte(storageKey))
	if err != nil {
		return nil, fmt.Errorf("value sealed with key %q fails authentication (corrupt, or moved from another key)", e.keyID)
	}
	return plain, nil
}

// newAEAD is AES-256-GCM with key.
func newAEAD(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
