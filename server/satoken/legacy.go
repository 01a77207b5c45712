package satoken

import (
	"context"
	"fmt"

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
