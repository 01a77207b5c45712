package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/bramble-edge/bramble/join"
	"k8s.io/apimachinery/pkg/util/validation"
)

// authenticator accepts a client certificate signed by the cluster CA first
// and a user bearer token second, as the Kubernetes API server does.
type authenticator struct {
	ca        *x509.CertPool
	tokens    TokenLookup
	nodeCheck NodeCertCheck
	// viewerCheck, when set, must accept a viewer certificate (by its CN).
	viewerCheck NodeCertCheck
	saTokens    ServiceAccountTokens // nil: ServiceAccount tokens are refused
}

// NodeCertCheck decides whether a verified node certificate is still good:
// nil when it is, an error saying why not (revoked, replaced by a newer
// join) otherwise. It is called on every request a node makes, so it must
// answer from memory.
type NodeCertCheck func(node string, cert *x509.Certificate) error

// Option tunes NewAuthenticator.
type Option func(*authenticator)

// WithNodeCertCheck makes the authenticator refuse node certificates that
// check rejects (401 with check's reason), so deleting a node revokes its
// certificate at once. Without it every node certificate the CA signed is
// accepted until it expires.
func WithNodeCertCheck(check NodeCertCheck) Option {
	return func(a *authenticator) { a.nodeCheck = check }
}

// WithViewerCertCheck makes the authenticator refuse viewer certificates
// (O=bramble:viewers) that check rejects, so that deleting a viewer
// credential revokes it at the API as at the broker.
func WithViewerCertCheck(check NodeCertCheck) Option {
	return func(a *authenticator) { a.viewerCheck = check }
}

var _ Authenticator = (*authenticator)(nil)

// NewAuthenticator returns the Authenticator of the API server.
//
// Client certificates: when the TLS handshake verified the chain
// (r.TLS.VerifiedChains, as ServingTLSConfig asks) that verdict is used; a
// certificate the handshake only requested is verified against ca here (nil
// ca: such certificates are refused). The identity comes from the subject:
// CN "admin" or O "system:masters" is admin; CN "system:node:<name>" with O
// "system:nodes" is the node <name>; O "bramble:viewers" is a viewer; any
// subject with another organization is that user in those groups (RBAC
// decides what it may do); a subject without any is refused.
//
// Bearer tokens (Authorization: Bearer <id>.<secret>) are found by id through
// tokens and accepted when the sha256 of the secret matches the stored hash
// (constant-time compare). tokens may be nil: bearer tokens are then refused.
//
// Options: WithNodeCertCheck.
//
// Errors wrap ErrUnauthenticated, except a failing TokenLookup (the store is
// unreachable), whose error is returned wrapped as is: answer 500, not 401.
func NewAuthenticator(ca *x509.CertPool, tokens TokenLookup, opts ...Option) Authenticator {
	a := &authenticator{ca: ca, tokens: tokens}
	for _, o := range opts {
		o(a)
	}
	return a
}

func (a *authenticator) Authenticate(r *http.Request) (*User, error) {
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		cert, err := a.verifiedLeaf(r)
		if err != nil {
			return nil, err
		}
		return a.certUser(cert)
	}
	if h := r.Header.Get("Authorization"); h != "" {
		return a.bearerUser(r, h)
	}
	return nil, unauthenticated("no client certificate or bearer token")
}

func (a *authenticator) verifiedLeaf(r *http.Request) (*x509.Certificate, error) {
	if len(r.TLS.VerifiedChains) > 0 && len(r.TLS.VerifiedChains[0]) > 0 {
		return r.TLS.VerifiedChains[0][0], nil
	}
	peers := r.TLS.PeerCertificates
	if a.ca == nil {
		return nil, unauthenticated("client certificate %q was not verified", peers[0].Subject.CommonName)
	}
	inter := x509.NewCertPool()
	for _, c := range peers[1:] {
		inter.AddCert(c)
	}
	_, err := peers[0].Verify(x509.VerifyOptions{
		Roots:         a.ca,
		Intermediates: inter,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err != nil {
		return nil, unauthenticated("client certificate %q: %v", peers[0].Subject.CommonName, err)
	}
	return peers[0], nil
}

// certUser maps cert to its user and applies the node check to nodes and
// the viewer check to viewers.
func (a *authenticator) certUser(cert *x509.Certificate) (*User, error) {
	u, err := userFromCert(cert)
	if err != nil {
		return nil, err
	}
	check, name := a.nodeCheck, u.Node
	if u.Role == RoleViewer {
		check, name = a.viewerCheck, u.Name
	} else if u.Role != RoleNode {
		check = nil
	}
	if check == nil {
		return u, nil
	}
	if err := check(name, cert); err != nil {
		return nil, unauthenticated("client certificate %q: %v", cert.Subject.CommonName, err)
	}
	return u, nil
}

// userFromCert maps a verified certificate's subject to a user.
func userFromCert(c *x509.Certificate) (*User, error) {
	cn, groups := c.Subject.CommonName, c.Subject.Organization
	switch {
	case cn == AdminUser || slices.Contains(groups, GroupMasters):
		return &User{Name: cn, Groups: groups, Role: RoleAdmin}, nil
	case strings.HasPrefix(cn, join.NodeUserPrefix):
		node := strings.TrimPrefix(cn, join.NodeUserPrefix)
		if !slices.Contains(groups, join.NodeGroup) {
			return nil, unauthenticated("client certificate %q: node certificates need organization %q", cn, join.NodeGroup)
		}
		if msgs := validation.IsDNS1123Subdomain(node); len(msgs) > 0 {
			return nil, unauthenticated("client certificate %q: node name: %s", cn, strings.Join(msgs, "; "))
		}
		return &User{Name: cn, Groups: groups, Role: RoleNode, Node: node}, nil
	case slices.Contains(groups, GroupViewers):
		return &User{Name: cn, Groups: groups, Role: RoleViewer}, nil
	case cn != "" && len(groups) > 0:
		return &User{Name: cn, Groups: groups}, nil // RBAC decides by name and groups
	}
	return nil, unauthenticated("client certificate %q carries no bramble role (organization %q, %q or %q) and no other group",
		cn, GroupMasters, join.NodeGroup, GroupViewers)
}

func (a *authenticator) bearerUser(r *http.Request, header string) (*User, error) {
	scheme, token, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return nil, unauthenticated("unsupported Authorization scheme: want Bearer <token>")
	}
	if token = strings.TrimSpace(token); isJWT(token) && a.saTokens != nil {
		return a.saTokens.AuthenticateToken(r.Context(), token)
	}
	id, secret, err := ParseUserToken(token)
	if err != nil || a.tokens == nil {
		return nil, unauthenticated("invalid bearer token")
	}
	stored, err := a.tokens.LookupUserToken(r.Context(), id)
	if errors.Is(err, ErrTokenNotFound) {
		return nil, unauthenticated("invalid bearer token")
	}
	if err != nil {
		return nil, fmt.Errorf("look up user token %s: %w", id, err)
	}
	got := sha256.Sum256([]byte(secret))
	want, err := hex.DecodeString(stored.SecretHash)
	if err != nil || subtle.ConstantTimeCompare(got[:], want) != 1 {
		return nil, unauthenticated("invalid bearer token")
	}
	return userFromToken(stored)
}

// userFromToken: what a user token may do comes from RBAC, through the
// ClusterRoleBinding made for its user (see server/rbac UserBindings);
// viewers are also in GroupViewers, as their certificates are.
func userFromToken(t *StoredToken) (*User, error) {
	if ValidateUserRole(t.Role) != nil {
		return nil, unauthenticated("invalid bearer token")
	}
	u := &User{Name: t.Name, Role: t.Role}
	if t.Role == RoleViewer {
		u.Groups = []string{GroupViewers}
	}
	return u, nil
}
