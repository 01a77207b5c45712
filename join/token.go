// Package join is the node side of joining a bramble cluster: the join token
// format, the exchange that trades a token and a certificate request for a
// node certificate, and the credentials it yields. The real agent and the
// hollow agents share it; it never imports the server.
//
// A join token is K10<sha256 of the CA certificate DER, hex>::<id>.<secret>.
// The hash lets a node check that it talks to the right cluster before it
// sends the secret; see docs/JOIN.md.
package join

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Token shape.
const (
	tokenPrefix    = "K10"
	tokenSeparator = "::"
	caHashLen      = 2 * sha256.Size
	// IDLen and SecretLen are the lengths of a token's id and secret, both
	// made of lowercase letters and digits.
	IDLen         = 6
	SecretLen     = 32
	tokenAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
)

// ErrMalformedToken wraps every ParseToken error.
var ErrMalformedToken = errors.New("malformed join token")

// Token is a parsed join token.
type Token struct {
	CAHash string // sha256 of the CA certificate's DER, lowercase hex
	ID     string
	Secret string
}

// String is the full token, K10<hash>::<id>.<secret>. It holds the secret:
// log Redacted instead.
func (t Token) String() string {
	return tokenPrefix + t.CAHash + tokenSeparator + t.ID + "." + t.Secret
}

// Redacted is the token with its secret hidden, for logs and messages.
func (t Token) Redacted() string {
	return tokenPrefix + t.CAHash + tokenSeparator + t.ID + ".<secret>"
}

// CAHash returns the sha256 of a certificate's DER in lowercase hex, the
// form a token carries.
func CAHash(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// NewToken draws a fresh id and secret for the CA whose hash is caHash.
func NewToken(caHash string) (Token, error) {
	if err := checkCAHash(caHash); err != nil {
		return Token{}, err
	}
	id, err := RandomString(IDLen)
	if err != nil {
		return Token{}, err
	}
	secret, err := RandomString(SecretLen)
	if err != nil {
		return Token{}, err
	}
	return Token{CAHash: strings.ToLower(caHash), ID: id, Secret: secret}, nil
}

// ParseToken reads K10<64 hex digits>::<id>.<secret> (surrounding white
// space ignored; the hash may be in either case and is returned lowercase).
// Errors wrap ErrMalformedToken and say which part is wrong; they never
// repeat the secret.
func ParseToken(s string) (Token, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Token{}, malformed("empty; want K10<CA hash>::<id>.<secret>")
	}
	rest, ok := strings.CutPrefix(s, tokenPrefix)
	if !ok {
		return Token{}, malformed("must start with %q; want K10<CA hash>::<id>.<secret>", tokenPrefix)
	}
	hash, cred, ok := strings.Cut(rest, tokenSeparator)
	if !ok {
		return Token{}, malformed("no %q after the CA hash; want K10<CA hash>::<id>.<secret>", tokenSeparator)
	}
	if err := checkCAHash(hash); err != nil {
		return Token{}, err
	}
	id, secret, ok := strings.Cut(cred, ".")
	if !ok {
		return Token{}, malformed("no '.' between id and secret; want K10<CA hash>::<id>.<secret>")
	}
	if err := CheckID(id); err != nil {
		return Token{}, err
	}
	if err := checkPart("secret", secret, SecretLen, false); err != nil {
		return Token{}, err
	}
	return Token{CAHash: strings.ToLower(hash), ID: id, Secret: secret}, nil
}

// CheckID checks that id has the shape of a token id.
func CheckID(id string) error { return checkPart("id", id, IDLen, true) }

// CheckSecret checks that secret has the shape of a token secret.
func CheckSecret(secret string) error { return checkPart("secret", secret, SecretLen, false) }

func checkCAHash(hash string) error {
	if len(hash) != caHashLen {
		return malformed("CA hash has %d characters, want %d (a sha256 in hex)", len(hash), caHashLen)
	}
	for i := 0; i < len(hash); i++ {
		if !isHex(hash[i]) {
			return malformed("CA hash character %d (%q) is not a hex digit", i+1, hash[i])
		}
	}
	return nil
}

// checkPart checks length and alphabet; show says whether the offending
// character may be quoted (never for secrets).
func checkPart(part, s string, want int, show bool) error {
	if len(s) != want {
		return malformed("%s has %d characters, want %d", part, len(s), want)
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(tokenAlphabet, s[i]) >= 0 {
			continue
		}
		if show {
			return malformed("%s character %d (%q) is not a lowercase letter or digit", part, i+1, s[i])
		}
		return malformed("%s character %d is not a lowercase letter or digit", part, i+1)
	}
	return nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformedToken, fmt.Sprintf(format, args...))
}

// RandomString draws n characters of lowercase letters and digits (the
// alphabet of every bramble token) uniformly from crypto/rand: bytes at or
// above the largest multiple of the alphabet size are dropped, so no
// character is more likely than another.
func RandomString(n int) (string, error) {
	const limit = 256 - 256%len(tokenAlphabet)
	out := make([]byte, 0, n)
	buf := make([]byte, n+8)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("read random bytes: %w", err)
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < n {
				out = append(out, tokenAlphabet[int(b)%len(tokenAlphabet)])
			}
		}
	}
	return string(out), nil
}
