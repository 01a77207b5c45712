package auth

import (
	"context"
	"strings"
)

// nodeAuthorizer applies the node rules (node_authorizer.go) to node
// identities.
type nodeAuthorizer struct {
	graph NodeGraph
}

var _ Authorizer = (*nodeAuthorizer)(nil)

// NewNodeAuthorizer returns the authorizer of node identities (RoleNode):
// a node may read the discovery and health paths and do what a kubelet
// needs for its own node and pods (see authorizeNode). Every other
// identity is refused here: RBAC (server/rbac) decides for users and
// service accounts, and asks this authorizer first for nodes. graph
// answers the node rules' questions (which node a pod is bound to, what
// its pods reference); nil refuses whatever needs it.
//
// For a create, Attributes.Name must hold metadata.name from the request
// body: the node rules check it (a node creates only its own Node and Lease).
// For non-resource paths Verb is the lowercase HTTP method ("get", "head").
func NewNodeAuthorizer(graph NodeGraph) Authorizer {
	return &nodeAuthorizer{graph: graph}
}

func (a *nodeAuthorizer) Authorize(ctx context.Context, user *User, attrs Attributes) error {
	if user == nil {
		return &ForbiddenError{User: "system:anonymous", Attrs: attrs}
	}
	if user.Role != RoleNode {
		return forbidden(user, attrs, "the node rules apply to nodes only")
	}
	return a.authorizeNode(ctx, user, attrs)
}

// discoveryPaths are the non-resource paths a node may read, as the
// Kubernetes system:discovery and system:public-info-viewer roles allow. An
// entry ending in "/" also covers everything below it.
var discoveryPaths = []string{
	"/version", "/version/", "/api", "/api/", "/apis", "/apis/",
	"/openapi", "/openapi/", "/healthz", "/healthz/", "/livez", "/livez/",
	"/readyz", "/readyz/",
}

func authorizeNonResource(user *User, attrs Attributes) error {
	if attrs.Verb != "get" && attrs.Verb != "head" {
		return forbidden(user, attrs, "only get and head are allowed on this path")
	}
	p := attrs.NonResourcePath
	for _, allowed := range discoveryPaths {
		if p == allowed || (strings.HasSuffix(allowed, "/") && strings.HasPrefix(p, allowed)) {
			return nil
		}
	}
	return forbidden(user, attrs, "")
}
