package satoken

import (
	"context"
	"crypto/subtle"
	"fmt"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/auth"
)

var _ auth.ServiceAccountTokens = (*Tokens)(nil)

// leeway is the clock skew tolerated on exp, nbf and iat (between
// servers: tokens are checked by the cluster that issued them).
const leeway = 10 * time.Second

// parsed is a token whose signature verified.
type parsed struct {
	std  jwt.Claims
	priv privateClaims
}

// AuthenticateToken verifies a ServiceAccount JWT and returns its user.
// Errors wrap auth.ErrUnauthenticated, except a datastore failure while
// reading the keys or the bound objects (answered 500).
func (t *Tokens) AuthenticateToken(ctx context.Context, token string) (*auth.User, error) {
	p, err := t.parse(ctx, token)
	if err != nil {
		return nil, err
	}
	if p.std.Issuer == LegacyIssuer {
		return t.legacyUser(ctx, token, p)
	}
	return t.boundUser(ctx, p)
}

// parse checks the signature with the published key the header names
// (or finds the token in the verified cache, its key still trusted).
func (t *Tokens) parse(ctx context.Context, token string) (*parsed, error) {
	now := t.cfg.Now()
	if p, kid := t.verified.get(token, now); p != nil {
		if pub, err := t.keys.lookup(ctx, kid); err != nil || pub != nil {
			return p, err
		}
	}
	tok, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		return nil, unauthenticated("malformed service account token: %v", err)
	}
	if len(tok.Headers) != 1 || tok.Headers[0].KeyID == "" {
		return nil, unauthenticated("service account token without a key id")
	}
	kid := tok.Headers[0].KeyID
	pub, err := t.keys.lookup(ctx, kid)
	if err != nil {
		return nil, err
	}
	if pub == nil {
		return nil, unauthenticated("service account token signed by an unknown key %q", kid)
	}
	var p parsed
	if err := tok.Claims(pub, &p.std, &p.priv); err != nil {
		return nil, unauthenticated("service account token: %v", err)
	}
	t.verified.put(token, &p, kid, now)
	return &p, nil
}

// boundUser checks a bound token's time, issuer and audience, and that
// its ServiceAccount and bound objects still exist with the same uids.
func (t *Tokens) boundUser(ctx context.Context, p *parsed) (*auth.User, error) {
	err := p.std.ValidateWithLeeway(jwt.Expected{Issuer: t.cfg.Issuer, Time: t.cfg.Now()}, leeway)
	if err != nil {
		return nil, unauthenticated("service account token: %v", err)
	}
	if p.std.Expiry == nil {
		return nil, unauthenticated("service account token without an expiry")
	}
	if !slices.ContainsFunc(t.cfg.Audiences, p.std.Audience.Contains) {
		return nil, unauthenticated("service account token for audience %q, not the API's", []string(p.std.Audience))
	}
	kc := p.priv.Kubernetes
	if kc == nil || kc.Namespace == "" || kc.ServiceAccount.Name == "" {
		return nil, unauthenticated("service account token without its kubernetes.io claims")
	}
	if p.std.Subject != Subject(kc.Namespace, kc.ServiceAccount.Name) {
		return nil, unauthenticated("service account token: sub %q does not name its service account", p.std.Subject)
	}
	if err := t.stillThere(ctx, serviceAccounts, kc.Namespace, &kc.ServiceAccount); err != nil {
		return nil, err
	}
	for _, b := range []struct {
		res *api.Resource
		ref *objectRef
	}{{podsResource, kc.Pod}, {secretsResource, kc.Secret}} {
		if b.ref != nil {
			if err := t.stillThere(ctx, b.res, kc.Namespace, b.ref); err != nil {
				return nil, err
			}
		}
	}
	u := serviceAccountUser(kc.Namespace, kc.ServiceAccount.Name)
	u.UID, u.Extra = kc.ServiceAccount.UID, boundExtra(kc, p.std.ID)
	return u, nil
}

// boundExtra is upstream's user extra of a bound token: the bound pod
// and node, and the token's id.
func boundExtra(kc *kubernetesClaims, jti string) map[string][]string {
	extra := map[string][]string{}
	add := func(key, val string) {
		if val != "" {
			extra["authentication.kubernetes.io/"+key] = []string{val}
		}
	}
	if kc.Pod != nil {
		add("pod-name", kc.Pod.Name)
		add("pod-uid", kc.Pod.UID)
	}
	if kc.Node != nil {
		add("node-name", kc.Node.Name)
		add("node-uid", kc.Node.UID)
	}
	if jti != "" {
		add("credential-id", "JTI="+jti)
	}
	return extra
}

// legacyUser checks a Secret's token: the Secret must still hold exactly
// this token, for the same ServiceAccount.
func (t *Tokens) legacyUser(ctx context.Context, token string, p *parsed) (*auth.User, error) {
	ns, name := p.priv.LegacyNamespace, p.priv.LegacyName
	if ns == "" || name == "" || p.priv.LegacySecret == "" || p.std.Subject != Subject(ns, name) {
		return nil, unauthenticated("legacy service account token with incomplete claims")
	}
	obj, err := t.cfg.Objects.Get(ctx, secretsResource, ns, p.priv.LegacySecret)
	if apierrors.IsNotFound(err) {
		return nil, unauthenticated("service account token: secret %s/%s was deleted", ns, p.priv.LegacySecret)
	}
	if err != nil {
		return nil, fmt.Errorf("read secret %s/%s: %w", ns, p.priv.LegacySecret, err)
	}
	sec := obj.(*corev1.Secret)
	if sec.Type != corev1.SecretTypeServiceAccountToken ||
		subtle.ConstantTimeCompare(sec.Data[corev1.ServiceAccountTokenKey], []byte(token)) != 1 {
		return nil, unauthenticated("service account token: secret %s/%s no longer holds it", ns, p.priv.LegacySecret)
	}
	if err := t.stillThere(ctx, serviceAccounts, ns, &objectRef{Name: name, UID: p.priv.LegacyUID}); err != nil {
		return nil, err
	}
	u := serviceAccountUser(ns, name)
	u.UID = p.priv.LegacyUID
	return u, nil
}

// stillThere checks that the object ref names exists with ref's uid.
func (t *Tokens) stillThere(ctx context.Context, res *api.Resource, ns string, ref *objectRef) error {
	obj, err := t.cfg.Objects.Get(ctx, res, ns, ref.Name)
	if apierrors.IsNotFound(err) {
		return unauthenticated("service account token bound to %s %s/%s, which no longer exists", res.Singular, ns, ref.Name)
	}
	if err != nil {
		return fmt.Errorf("read %s %s/%s: %w", res.Singular, ns, ref.Name, err)
	}
	if ref.UID != "" && string(obj.GetUID()) != ref.UID {
		return unauthenticated("service account token bound to %s %s/%s with uid %s, which was replaced", res.Singular, ns, ref.Name, ref.UID)
	}
	return nil
}

func serviceAccountUser(ns, name string) *auth.User {
	return &auth.User{Name: Subject(ns, name), Groups: Groups(ns)}
}

func unauthenticated(format string, args ...any) error {
	return fmt.Errorf("%w: %s", auth.ErrUnauthenticated, fmt.Sprintf(format, args...))
}
