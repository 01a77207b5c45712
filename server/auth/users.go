package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	nodejoin "github.com/bramble-edge/bramble/join"

	corev1 "k8s.io/api/core/v1"
	apipath "k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Where and how user tokens are stored: one Secret per user in
// UserNamespace, named UserSecretPrefix+<user name>, of type UserSecretType,
// labelled UserLabel=<user name>. Its data holds the token id, the user
// name, the role and the sha256 (hex) of the token's secret part; the secret
// itself is never stored. Naming the Secret after the user makes names unique
// (a second create answers 409) and lets `bramble user delete NAME` delete by
// name; the authenticator finds a token by id through an id index built from
// the listed Secrets (see SecretTokenLookup).
const (
	UserNamespace    = "kube-system"
	UserSecretPrefix = "bramble-user-"
	UserSecretType   = corev1.SecretType("bramble.io/user-token")
	UserLabel        = "bramble.io/user"
)

// Keys of a user Secret's data.
const (
	userKeyID   = "id"
	userKeyName = "name"
	userKeyRole = "role"
	// A user bound to a ClusterRole other than cluster-admin and view has
	// role roleClusterRole and the ClusterRole's name under
	// userKeyClusterRole, so that admin and viewer Secrets read as before
	// (and older servers refuse the others rather than misread them).
	userKeyClusterRole = "clusterrole"
	roleClusterRole    = "clusterrole"
	userKeyHash        = "secret-hash"
)

// Token shape: <id>.<secret>, both lowercase letters and digits.
const (
	tokenIDLen     = 6
	tokenSecretLen = 32
	tokenAlphabet  = "abcdefghijklmnopqrstuvwxyz0123456789"
)

// StoredToken is what the server keeps of a user token.
type StoredToken struct {
	ID         string
	Name       string // user name
	Role       string // RoleAdmin or RoleViewer
	SecretHash string // sha256 of the secret part, lowercase hex
}

// ErrTokenNotFound: no user token has the id asked for.
var ErrTokenNotFound = errors.New("user token not found")

// TokenLookup finds a stored user token by id. It returns an error wrapping
// ErrTokenNotFound when there is none; any other error is a failure to look.
type TokenLookup interface {
	LookupUserToken(ctx context.Context, id string) (*StoredToken, error)
}

// ValidateUserName checks that name can name a user: a DNS-1123 label
// (lowercase letters, digits and '-', at most 63 characters).
func ValidateUserName(name string) error {
	if name == "" {
		return errors.New("user name: must not be empty")
	}
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		return fmt.Errorf("user name %q: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}

// ValidateUserRole checks that role is one a user may hold: admin (bound
// to the ClusterRole cluster-admin), viewer (bound to view) or the name of
// any ClusterRole. "node" is reserved for node identities.
func ValidateUserRole(role string) error {
	msgs := apipath.IsValidPathSegmentName(role)
	if role == "" || role == RoleNode || len(msgs) > 0 {
		msgs = append([]string{fmt.Sprintf("must be %q or %q or the name of a ClusterRole", RoleAdmin, RoleViewer)}, msgs...)
		return fmt.Errorf("role %q: %s", role, strings.Join(msgs, "; "))
	}
	return nil
}

// UserClusterRole is the ClusterRole a user with role is bound to.
func UserClusterRole(role string) string {
	switch role {
	case RoleAdmin:
		return "cluster-admin"
	case RoleViewer:
		return "view"
	}
	return role
}

// HashTokenSecret returns the sha256 of a token's secret part in lowercase hex.
func HashTokenSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NewUserToken makes a fresh token for user name with role and the Secret
// that stores it. The token (<id>.<secret>) is shown to the person once; the
// Secret holds only its hash.
func NewUserToken(name, role string) (*corev1.Secret, string, error) {
	if err := ValidateUserName(name); err != nil {
		return nil, "", err
	}
	if err := ValidateUserRole(role); err != nil {
		return nil, "", err
	}
	id, err := nodejoin.RandomString(tokenIDLen)
	if err != nil {
		return nil, "", err
	}
	secret, err := nodejoin.RandomString(tokenSecretLen)
	if err != nil {
		return nil, "", err
	}
	s := userSecret(name, role)
	s.Data[userKeyID] = []byte(id)
	s.Data[userKeyHash] = []byte(HashTokenSecret(secret))
	return s, id + "." + secret, nil
}

// userSecret is the Secret of user name with role, without its token.
func userSecret(name, role string) *corev1.Secret {
	data := map[string][]byte{userKeyName: []byte(name), userKeyRole: []byte(role)}
	if role != RoleAdmin && role != RoleViewer {
		data[userKeyRole], data[userKeyClusterRole] = []byte(roleClusterRole), []byte(role)
	}
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      UserSecretPrefix + name,
			Namespace: UserNamespace,
			Labels:    map[string]string{UserLabel: name},
		},
		Type: UserSecretType,
		Data: data,
	}
}

// ParseUserToken splits a user token into its id and secret, checking the
// shape: 6 then 32 lowercase letters or digits, joined by a dot.
func ParseUserToken(s string) (id, secret string, err error) {
	id, secret, ok := strings.Cut(s, ".")
	if !ok {
		return "", "", errors.New("user token: want <id>.<secret>, found no '.'")
	}
	if err := checkTokenPart("id", id, tokenIDLen); err != nil {
		return "", "", err
	}
	if err := checkTokenPart("secret", secret, tokenSecretLen); err != nil {
		return "", "", err
	}
	return id, secret, nil
}

func checkTokenPart(part, s string, want int) error {
	if len(s) != want {
		return fmt.Errorf("user token %s: got %d characters, want %d", part, len(s), want)
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(tokenAlphabet, s[i]) < 0 {
			return fmt.Errorf("user token %s: character %d is not a lowercase letter or digit", part, i+1)
		}
	}
	return nil
}

// StoredTokenFromSecret reads a user Secret back, checking every field.
func StoredTokenFromSecret(s *corev1.Secret) (*StoredToken, error) {
	if s.Type != UserSecretType {
		return nil, fmt.Errorf("secret %s/%s: type %q, want %q", s.Namespace, s.Name, s.Type, UserSecretType)
	}
	t := &StoredToken{
		ID:         string(s.Data[userKeyID]),
		Name:       string(s.Data[userKeyName]),
		Role:       string(s.Data[userKeyRole]),
		SecretHash: string(s.Data[userKeyHash]),
	}
	if err := checkTokenPart("id", t.ID, tokenIDLen); err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	if err := ValidateUserName(t.Name); err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	if err := storedRole(t, s.Data[userKeyClusterRole]); err != nil {
		return nil, fmt.Errorf("secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	if b, err := hex.DecodeString(t.SecretHash); err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("secret %s/%s: %s is not a sha256 in hex", s.Namespace, s.Name, userKeyHash)
	}
	return t, nil
}

// storedRole checks a stored role: admin, viewer, or roleClusterRole with
// the ClusterRole's name, which replaces it in t.Role.
func storedRole(t *StoredToken, clusterRole []byte) error {
	switch t.Role {
	case RoleAdmin, RoleViewer:
		return nil
	case roleClusterRole:
		t.Role = string(clusterRole)
		if t.Role == RoleAdmin || t.Role == RoleViewer {
			return fmt.Errorf("role %q: stored as a ClusterRole name", t.Role)
		}
		return ValidateUserRole(t.Role)
	}
	return fmt.Errorf("role %q: must be %q, %q or %q", t.Role, RoleAdmin, RoleViewer, roleClusterRole)
}
