package auth

import (
	"context"
	"strings"
)

// authorizer applies bramble's three fixed roles.
type authorizer struct {
	graph NodeGraph
}

var _ Authorizer = (*authorizer)(nil)

// NewAuthorizer returns the Authorizer of the API server. graph answers the
// node rules' questions (which node a pod is bound to, what its pods
// reference); it may be nil when no node identity will ever ask.
//
// The roles:
//
//   - admin may do everything.
//   - viewer may get, list and watch every resource and subresource (pods/log
//     included) except Secrets and the exec/attach/portforward/proxy
//     subresources, like the Kubernetes "view" role, and read the discovery
//     and health paths. It writes nothing.
//   - node may read the discovery and health paths and do what a kubelet
//     needs for its own node and pods (see nodeRules).
//
// For a create, Attributes.Name must hold metadata.name from the request
// body: the node rules check it (a node creates only its own Node and Lease).
// For non-resource paths Verb is the lowercase HTTP method ("get", "head").
func NewAuthorizer(graph NodeGraph) Authorizer {
	return &authorizer{graph: graph}
}

func (a *authorizer) Authorize(ctx context.Context, user *User, attrs Attributes) error {
	if user == nil {
		return &ForbiddenError{User: "system:anonymous", Attrs: attrs}
	}
	switch user.Role {
	case RoleAdmin:
		return nil
	case RoleViewer:
		return authorizeViewer(user, attrs)
	case RoleNode:
		return a.authorizeNode(ctx, user, attrs)
	}
	return forbidden(user, attrs, "unknown role "+quote(user.Role))
}

// readVerbs are the verbs a viewer holds.
var readVerbs = map[string]bool{"get": true, "list": true, "watch": true}

func authorizeViewer(user *User, attrs Attributes) error {
	if attrs.NonResourcePath != "" {
		return authorizeNonResource(user, attrs)
	}
	if !readVerbs[attrs.Verb] {
		return forbidden(user, attrs, "viewers may only get, list and watch")
	}
	if attrs.Group == "" && attrs.Resource == "secrets" {
		return forbidden(user, attrs, "viewers may not read secrets")
	}
	if interactiveSubresources[attrs.Subresource] {
		return forbidden(user, attrs, "viewers may not reach into containers")
	}
	return nil
}

// interactiveSubresources run commands or open connections even when the
// verb is "get" (a websocket upgrade); the Kubernetes "view" role leaves
// them out, and so does ours.
var interactiveSubresources = map[string]bool{
	"exec": true, "attach": true, "portforward": true, "proxy": true,
}

// discoveryPaths are the non-resource paths every identity may read, as the
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

func quote(s string) string { return `"` + s + `"` }
