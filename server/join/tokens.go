// Package join is the server side of nodes joining the cluster: join tokens
// stored as Secrets and scoped by usages, node passwords that keep a name
// to the machine that first joined under it, the default token file, the
// /cacerts and /v1-bramble/join endpoints, the registry of issued node
// certificates that makes revocation immediate, and the admin client
// behind `bramble token`.
// The node side (token format, the exchange) is package
// github.com/bramble-edge/bramble/join; docs/JOIN.md tells the whole story.
package join

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodejoin "github.com/bramble-edge/bramble/join"
)

// Where join tokens live: one Secret per token in TokenNamespace named
// TokenSecretPrefix+<id>, of type TokenSecretType, labelled TokenLabel=<id>.
// Its data holds the id, the sha256 (hex) of the secret, a description and
// the expiry (RFC 3339, empty for never). The secret itself is never stored.
const (
	TokenNamespace    = "kube-system"
	TokenSecretPrefix = "bramble-token-"
	TokenSecretType   = corev1.SecretType("bramble.io/join-token")
	TokenLabel        = "bramble.io/join-token"
)

// Keys of a token Secret's data.
const (
	keyID          = "id"
	keySecretHash  = "secret-hash"
	keyDescription = "description"
	keyExpires     = "expires"
)

// MaxDescriptionLen bounds a token's description, in bytes.
const MaxDescriptionLen = 256

// TokenInfo is what the server keeps of a join token.
type TokenInfo struct {
	ID          string
	Description string
	// Expires is when the token stops working; zero means never.
	Expires    time.Time
	Created    time.Time
	SecretHash string // sha256 of the secret, lowercase hex
	// Usages are what the token may be used for (UsageJoin, UsageRejoin).
	Usages []string
	// Nodes are the nodes whose latest join used this token, sorted; only
	// TokenClient.ListTokens fills it in.
	Nodes []string
}

// Expired reports whether the token has expired at now.
func (t *TokenInfo) Expired(now time.Time) bool {
	return !t.Expires.IsZero() && !now.Before(t.Expires)
}

// ValidateDescription checks a token description: at most
// MaxDescriptionLen bytes of UTF-8 text without control characters.
func ValidateDescription(d string) error {
	if len(d) > MaxDescriptionLen {
		return fmt.Errorf("description: %d bytes, at most %d allowed", len(d), MaxDescriptionLen)
	}
	if !utf8.ValidString(d) {
		return fmt.Errorf("description: not valid UTF-8")
	}
	if i := strings.IndexFunc(d, unicode.IsControl); i >= 0 {
		return fmt.Errorf("description: control character at byte %d", i+1)
	}
	return nil
}

// hashSecret returns the sha256 of a token secret in lowercase hex.
func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NewTokenSecret draws a fresh token for the CA with hash caHash and builds
// the Secret that stores it. ttl 0 means the token never expires; now is
// the creation time the expiry counts from; no usages means
// DefaultUsages. The returned token (with its secret) is shown to the
// person once.
func NewTokenSecret(caHash string, ttl time.Duration, description string, now time.Time, usages ...string) (*corev1.Secret, nodejoin.Token, error) {
	if len(usages) == 0 {
		usages = DefaultUsages
	}
	if err := ValidateUsages(usages); err != nil {
		return nil, nodejoin.Token{}, err
	}
	if ttl < 0 {
		return nil, nodejoin.Token{}, fmt.Errorf("ttl %s: must not be negative (0 means never expires)", ttl)
	}
	if err := ValidateDescription(description); err != nil {
		return nil, nodejoin.Token{}, err
	}
	tok, err := nodejoin.NewToken(caHash)
	if err != nil {
		return nil, nodejoin.Token{}, err
	}
	expires := ""
	if ttl > 0 {
		expires = now.Add(ttl).UTC().Format(time.RFC3339)
	}
	s := &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      TokenSecretPrefix + tok.ID,
			Namespace: TokenNamespace,
			Labels:    map[string]string{TokenLabel: tok.ID},
		},
		Type: TokenSecretType,
		Data: map[string][]byte{
			keyID:          []byte(tok.ID),
			keySecretHash:  []byte(hashSecret(tok.Secret)),
			keyDescription: []byte(description),
			keyExpires:     []byte(expires),
			keyUsages:      []byte(strings.Join(usages, ",")),
		},
	}
	return s, tok, nil
}

// TokenFromSecret reads a token Secret back, checking every field.
func TokenFromSecret(s *corev1.Secret) (*TokenInfo, error) {
	where := s.Namespace + "/" + s.Name
	if s.Type != TokenSecretType {
		return nil, fmt.Errorf("secret %s: type %q, want %q", where, s.Type, TokenSecretType)
	}
	t := &TokenInfo{
		ID:          string(s.Data[keyID]),
		Description: string(s.Data[keyDescription]),
		SecretHash:  string(s.Data[keySecretHash]),
		Created:     s.CreationTimestamp.Time,
	}
	if err := nodejoin.CheckID(t.ID); err != nil {
		return nil, fmt.Errorf("secret %s: %w", where, err)
	}
	if s.Name != TokenSecretPrefix+t.ID {
		return nil, fmt.Errorf("secret %s: name does not match token id %q", where, t.ID)
	}
	if b, err := hex.DecodeString(t.SecretHash); err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("secret %s: %s is not a sha256 in hex", where, keySecretHash)
	}
	usages, err := parseUsages(string(s.Data[keyUsages]))
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", where, err)
	}
	t.Usages = usages
	if exp := string(s.Data[keyExpires]); exp != "" {
		at, err := time.Parse(time.RFC3339, exp)
		if err != nil {
			return nil, fmt.Errorf("secret %s: %s: %w", where, keyExpires, err)
		}
		t.Expires = at
	}
	return t, nil
}
