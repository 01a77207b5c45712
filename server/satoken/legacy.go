package satoken

import (
	"context"
	"fmt"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	corev1 "k8s.io/api/core/v1"
)

// IssueLegacy signs the token of a kubernetes.io/service-account-token
// Secret for sa, with upstream's legacy claims and no expiry. It is valid
// while the Secret holds it (verify.go legacyUser).
func (t *Tokens) IssueLegacy(ctx context.Context, sa *corev1.ServiceAccount, secret *corev1.Secret) (string, error) {
	std := jwt.Claims{Issuer: LegacyIssuer, Subject: Subject(sa.Namespace, sa.Name)}
	priv := privateClaims{LegacyNamespace: sa.Namespace, LegacySecret: secret.Name,
		LegacyName: sa.Name, LegacyUID: string(sa.UID)}
	token, err := jwt.Signed(t.signer).Claims(std).Claims(priv).Serialize()
	if err != nil {
		return "", fmt.Errorf("sign legacy token for %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	return token, nil
}

// LegacyStale reports whether a legacy Secret's token is signed by a key
// that is retired or no longer trusted, so the token controller signs it
// again with the current key before the old one is dropped.
func (t *Tokens) LegacyStale(ctx context.Context, token string) bool {
	sig, err := jose.ParseSignedCompact(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil || len(sig.Signatures) != 1 {
		return true
	}
	return !t.keys.signing(ctx, sig.Signatures[0].Header.KeyID)
}
