package satoken

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestBoundTokenAuthenticates(t *testing.T) {
	f := newFixture(t)
	tk := f.tokens(t, t.TempDir())
	u, err := tk.AuthenticateToken(context.Background(), issue(t, tk, true))
	if err != nil {
		t.Fatal(err)
	}
	wantGroups := []string{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}
	if u.Name != "system:serviceaccount:team:robot" || !slices.Equal(u.Groups, wantGroups) || u.Role != "" {
		t.Fatalf("got %+v, want system:serviceaccount:team:robot in %v", u, wantGroups)
	}
	if u.UID != "sa-1" || u.Extra["authentication.kubernetes.io/pod-name"][0] != "web" ||
		u.Extra["authentication.kubernetes.io/pod-uid"][0] != "pod-1" || u.Extra["authentication.kubernetes.io/node-name"][0] != "n1" {
		t.Fatalf("uid %q extra %v, want sa-1 and the bound pod and node", u.UID, u.Extra)
	}
}

func TestClaimsAsUpstream(t *testing.T) {
	f := newFixture(t)
	tk := f.tokens(t, t.TempDir())
	tok, err := jwt.ParseSigned(issue(t, tk, true), []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		t.Fatal(err)
	}
	var std jwt.Claims
	var priv privateClaims
	if err := tok.UnsafeClaimsWithoutVerification(&std, &priv); err != nil {
		t.Fatal(err)
	}
	kc := priv.Kubernetes
	if std.Issuer != DefaultIssuer || !std.Audience.Contains(DefaultIssuer) || std.Expiry == nil || std.NotBefore == nil || std.IssuedAt == nil {
		t.Fatalf("registered claims %+v", std)
	}
	if got := std.Expiry.Time().Sub(std.IssuedAt.Time()); got != DefaultExpirationSeconds*time.Second {
		t.Errorf("life %v, want %ds", got, DefaultExpirationSeconds)
	}
	if kc == nil || kc.Namespace != "team" || kc.ServiceAccount != (objectRef{"robot", "sa-1"}) ||
		kc.Pod == nil || *kc.Pod != (objectRef{"web", "pod-1"}) || kc.Node == nil || *kc.Node != (objectRef{"n1", "node-1"}) {
		t.Fatalf("kubernetes.io claims %+v", kc)
	}
	if tok.Headers[0].KeyID != tk.KeyID() {
		t.Errorf("kid %q, want %q", tok.Headers[0].KeyID, tk.KeyID())
	}
}

func TestRefusals(t *testing.T) {
	f := newFixture(t)
	tk := f.tokens(t, t.TempDir())
	wantRefused(t, tk, issue(t, tk, false, "https://vault.example"), "wrong audience")
	expired := issue(t, tk, false)
	f.clock.add(time.Hour + time.Minute)
	wantRefused(t, tk, expired, "expired")
	bound := issue(t, tk, true)
	f.objs.put(podsResource, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "team", UID: "pod-2"},
		Spec: corev1.PodSpec{ServiceAccountName: "robot"}})
	wantRefused(t, tk, bound, "bound pod replaced")
	f.objs.del(podsResource, "team", "web")
	wantRefused(t, tk, bound, "bound pod deleted")
	unbound := issue(t, tk, false)
	f.objs.del(serviceAccounts, "team", "robot")
	wantRefused(t, tk, unbound, "service account deleted")
}

func TestUnknownKeyRefused(t *testing.T) {
	f := newFixture(t)
	tk := f.tokens(t, t.TempDir())
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for _, kid := range []string{"made-up", tk.KeyID()} { // a foreign kid, and ours with a foreign signature
		sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: other},
			(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
		if err != nil {
			t.Fatal(err)
		}
		now := f.clock.Now()
		forged, err := jwt.Signed(sig).Claims(jwt.Claims{Issuer: DefaultIssuer, Subject: Subject("team", "robot"),
			Audience: jwt.Audience{DefaultIssuer}, Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now)}).
			Claims(privateClaims{Kubernetes: &kubernetesClaims{Namespace: "team", ServiceAccount: objectRef{"robot", "sa-1"}}}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		wantRefused(t, tk, forged, "signed by key "+kid)
	}
}

func TestRequestChecks(t *testing.T) {
	f := newFixture(t)
	tk := f.tokens(t, t.TempDir())
	short := int64(60)
	_, err := tk.Issue(context.Background(), "team", "robot", &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &short}})
	if !apierrors.IsInvalid(err) {
		t.Errorf("60 s token: got %v, want Invalid", err)
	}
	f.objs.put(podsResource, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "team", UID: "pod-9"},
		Spec: corev1.PodSpec{ServiceAccountName: "default"}})
	_, err = tk.Issue(context.Background(), "team", "robot", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", Name: "other"}}})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("pod of another account: got %v, want BadRequest", err)
	}
	_, err = tk.Issue(context.Background(), "team", "ghost", &authenticationv1.TokenRequest{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("missing account: got %v, want NotFound", err)
	}
}

// TestRotation: a replaced key file gives a new key; the old one stays
// trusted until MaxTTL after its retirement, then is dropped.
func TestRotation(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	first := f.tokens(t, dir)
	old := issue(t, first, false)
	if err := os.Remove(filepath.Join(dir, KeyFile)); err != nil {
		t.Fatal(err)
	}
	second := f.tokens(t, dir)
	if second.KeyID() == first.KeyID() {
		t.Fatal("a new key file kept the old key id")
	}
	if _, err := second.AuthenticateToken(context.Background(), old); err != nil {
		t.Fatalf("token of the retired key: %v", err)
	}
	f.clock.add(49 * time.Hour)
	fresh := issue(t, second, false)
	if _, err := second.AuthenticateToken(context.Background(), fresh); err != nil {
		t.Fatalf("token of the new key: %v", err)
	}
	if keys, _ := second.keys.all(context.Background()); len(keys) != 1 {
		t.Fatalf("after MaxTTL %d keys are trusted, want 1", len(keys))
	}
}

// TestServersShareKeys: two servers with their own keys on one datastore
// verify each other's tokens.
func TestServersShareKeys(t *testing.T) {
	f := newFixture(t)
	a, b := f.tokens(t, t.TempDir()), f.tokens(t, t.TempDir())
	if _, err := b.AuthenticateToken(context.Background(), issue(t, a, true)); err != nil {
		t.Fatalf("server b on a's token: %v", err)
	}
	c := f.tokens(t, t.TempDir()) // joins later: a learns its key on first sight
	if _, err := a.AuthenticateToken(context.Background(), issue(t, c, true)); err != nil {
		t.Fatalf("server a on c's token: %v", err)
	}
}

func TestLegacySecretToken(t *testing.T) {
	f := newFixture(t)
	tk := f.tokens(t, t.TempDir())
	sa, _ := f.objs.Get(context.Background(), serviceAccounts, "team", "robot")
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "robot-token", Namespace: "team"}, Type: corev1.SecretTypeServiceAccountToken}
	token, err := tk.IssueLegacy(context.Background(), sa.(*corev1.ServiceAccount), sec)
	if err != nil {
		t.Fatal(err)
	}
	wantRefused(t, tk, token, "secret not stored")
	sec.Data = map[string][]byte{corev1.ServiceAccountTokenKey: []byte(token)}
	f.objs.put(secretsResource, sec)
	if u, err := tk.AuthenticateToken(context.Background(), token); err != nil || u.Name != "system:serviceaccount:team:robot" {
		t.Fatalf("legacy token: %v %v", u, err)
	}
	f.objs.del(secretsResource, "team", "robot-token")
	wantRefused(t, tk, token, "secret deleted")
}

// TestLegacyStaleAfterRotation: a legacy token of a retired key is stale
// (the token controller signs it again), one of the current key is not.
func TestLegacyStaleAfterRotation(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	first := f.tokens(t, dir)
	sa, _ := f.objs.Get(context.Background(), serviceAccounts, "team", "robot")
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "robot-token", Namespace: "team"}}
	old, err := first.IssueLegacy(context.Background(), sa.(*corev1.ServiceAccount), sec)
	if err != nil {
		t.Fatal(err)
	}
	if first.LegacyStale(context.Background(), old) {
		t.Fatal("a token of the signing key is stale")
	}
	if err := os.Remove(filepath.Join(dir, KeyFile)); err != nil {
		t.Fatal(err)
	}
	second := f.tokens(t, dir)
	fresh, err := second.IssueLegacy(context.Background(), sa.(*corev1.ServiceAccount), sec)
	if err != nil {
		t.Fatal(err)
	}
	if !second.LegacyStale(context.Background(), old) || second.LegacyStale(context.Background(), fresh) {
		t.Fatal("after rotation: want the old key's token stale and the new key's not")
	}
}
