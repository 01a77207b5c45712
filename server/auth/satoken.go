package auth

import (
	"context"
	"fmt"
	"strings"
)

// ServiceAccountTokens verifies ServiceAccount JWTs (server/satoken).
type ServiceAccountTokens interface {
	// AuthenticateToken returns the token's ServiceAccount user
	// (system:serviceaccount:<ns>:<name>), or an error wrapping
	// ErrUnauthenticated; other errors mean the check could not be made.
	AuthenticateToken(ctx context.Context, token string) (*User, error)
}

// WithServiceAccountTokens makes the authenticator accept ServiceAccount
// JWTs as bearer tokens, verified by v. Without it they are refused.
func WithServiceAccountTokens(v ServiceAccountTokens) Option {
	return func(a *authenticator) { a.saTokens = v }
}

// isJWT tells a JWT (three dot-separated parts) from a bramble user token
// (<id>.<secret>).
func isJWT(token string) bool { return strings.Count(token, ".") == 2 }

// nodeServiceAccountToken lets a node create serviceaccounts/token; the
// TokenRequest handler then holds it to tokens bound to its own pods
// (NodeTokenCheck), as upstream's NodeRestriction admission does.
func nodeServiceAccountToken(user *User, attrs Attributes) error {
	if attrs.Subresource != "token" || attrs.Verb != "create" {
		return forbidden(user, attrs, "")
	}
	return nil
}

// NodeTokenCheck is what a node (system:node:<node>) may ask of a
// TokenRequest for ServiceAccount ns/sa: a token bound to a pod
// (boundKind "Pod") that is bound to node and runs as sa. podNode and
// podSA are the bound pod's spec.nodeName and serviceAccountName.
func NodeTokenCheck(node, boundKind, podNode, podSA, sa string) error {
	switch {
	case boundKind != "Pod":
		return fmt.Errorf("node %q may only request tokens bound to pods", node)
	case podNode != node:
		return fmt.Errorf("node %q may only request tokens for pods bound to it", node)
	case podSA != sa:
		return fmt.Errorf("the pod runs as service account %q, not %q", podSA, sa)
	}
	return nil
}
