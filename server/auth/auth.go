// Package auth decides who a request comes from (client certificate signed by
// the cluster CA, or a bearer token) and holds the node rules: what a node
// identity may do (its own Node, its pods, what they reference, Events).
// What everyone else may do is RBAC's (server/rbac); a user's role names
// the ClusterRole `bramble user create` binds it to.
package auth

import (
	"context"
	"errors"
	"net/http"
)

// Roles an identity can hold.
const (
	RoleAdmin  = "admin"
	RoleViewer = "viewer"
	RoleNode   = "node"
)

// User is an authenticated identity.
type User struct {
	Name   string   // "admin", "alice", "system:node:pi-1"
	Groups []string // e.g. "system:masters", "system:nodes"
	// Role is RoleNode for nodes; for users, the role they were made with
	// (RoleAdmin, RoleViewer or a ClusterRole's name), which RBAC decides
	// by through their binding, never by this field.
	Role string
	// Node is the node name for RoleNode identities, "" otherwise.
	Node string
	// UID and Extra are what upstream's user.Info carries besides name and
	// groups: a service account token's pod name and uid, or what an
	// impersonating request asked for (Impersonate-Uid, Impersonate-Extra-*).
	UID   string
	Extra map[string][]string
}

// ErrUnauthenticated: the request carries no credentials, or credentials
// that do not verify. The API answers 401.
var ErrUnauthenticated = errors.New("unauthenticated")

// Authenticator finds the identity behind a request.
type Authenticator interface {
	// Authenticate returns the request's user, or an error wrapping
	// ErrUnauthenticated with a reason a person can act on.
	Authenticate(r *http.Request) (*User, error)
}

// Attributes describe one API request for authorization.
type Attributes struct {
	Verb        string // get, list, watch, create, update, patch, delete, deletecollection
	Group       string // "" for core
	Resource    string // plural: "pods"
	Subresource string // "status", "log", "binding", "scale" or ""
	Namespace   string
	Name        string // "" for collections
	// FieldSelector is the raw fieldSelector of a list or watch, so the node
	// authorizer can require spec.nodeName=<its node>.
	FieldSelector string
	// NonResourcePath is set (and the rest empty) for /version, /api, ...
	NonResourcePath string
}

// NodeGraph answers the node authorizer's questions about what is bound
// where. The API server implements it over the datastore.
type NodeGraph interface {
	// PodNode returns the spec.nodeName of pod namespace/name ("" when
	// unbound); an error wrapping ErrNotFound-like conditions is returned as is.
	PodNode(ctx context.Context, namespace, name string) (string, error)
	// NodeReferences reports whether a pod bound to node references the
	// ConfigMap or Secret (resource "configmaps"/"secrets") namespace/name.
	NodeReferences(ctx context.Context, node, resource, namespace, name string) (bool, error)
}

// ErrForbidden wraps authorization refusals; the API answers 403.
var ErrForbidden = errors.New("forbidden")

// Authorizer decides whether user may do what attrs describe.
type Authorizer interface {
	// Authorize returns nil when allowed, or an error wrapping ErrForbidden
	// whose message says who may not do what.
	Authorize(ctx context.Context, user *User, attrs Attributes) error
}
