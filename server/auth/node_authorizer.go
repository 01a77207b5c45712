package auth

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/selection"
)

// The node rules. A node identity (CN=system:node:<node>) may:
//
//   - nodes: get its own Node; list and watch with fieldSelector
//     metadata.name=<node>; create, update and patch its own Node; get,
//     update and patch its own nodes/status; get its own nodes/view (its
//     MQTT view, the relist: server/publish ViewAttributes).
//   - pods: list and watch with fieldSelector spec.nodeName=<node>; get and
//     delete (the agent finalises deletions) a pod bound to it; get, update
//     and patch pods/status of a pod bound to it. No create.
//   - configmaps, secrets, persistentvolumeclaims: get one that a pod
//     bound to it references.
//   - events (core and events.k8s.io): create and patch.
//   - leases (coordination.k8s.io) in kube-node-lease: get, create and
//     update the one named after it.
//   - serviceaccounts/token: create, for a token bound to a pod bound to
//     it (the API checks the bound pod: nodeTokenCheck in satoken.go).
//
// Everything else is refused. Graph lookups that fail refuse too.
func (a *nodeAuthorizer) authorizeNode(ctx context.Context, user *User, attrs Attributes) error {
	if attrs.NonResourcePath != "" {
		return authorizeNonResource(user, attrs)
	}
	core := attrs.Group == ""
	switch {
	case core && attrs.Resource == "nodes":
		return nodeOwnNode(user, attrs)
	case core && attrs.Resource == "pods":
		return a.nodePods(ctx, user, attrs)
	case core && (attrs.Resource == "configmaps" || attrs.Resource == "secrets" || attrs.Resource == "persistentvolumeclaims"):
		return a.nodeReferenced(ctx, user, attrs)
	case attrs.Resource == "events" && (core || attrs.Group == "events.k8s.io"):
		return allowVerbs(user, attrs, "create", "patch")
	case attrs.Group == "coordination.k8s.io" && attrs.Resource == "leases":
		return nodeLease(user, attrs)
	case core && attrs.Resource == "serviceaccounts":
		return nodeServiceAccountToken(user, attrs)
	}
	return forbidden(user, attrs, "")
}

// NodeLeaseNamespace holds the nodes' heartbeat Leases.
const NodeLeaseNamespace = "kube-node-lease"

func nodeOwnNode(user *User, attrs Attributes) error {
	switch {
	case attrs.Subresource == "" && (attrs.Verb == "list" || attrs.Verb == "watch"):
		return requireOwnSelector(user, attrs, "metadata.name")
	case attrs.Subresource == "" && isVerb(attrs.Verb, "get", "create", "update", "patch"),
		attrs.Subresource == "status" && isVerb(attrs.Verb, "get", "update", "patch"),
		attrs.Subresource == "view" && attrs.Verb == "get":
		if attrs.Name != user.Node {
			return forbidden(user, attrs, fmt.Sprintf("node %q may only use its own Node object", user.Node))
		}
		return nil
	}
	return forbidden(user, attrs, "")
}

func (a *nodeAuthorizer) nodePods(ctx context.Context, user *User, attrs Attributes) error {
	switch {
	case attrs.Subresource == "" && (attrs.Verb == "list" || attrs.Verb == "watch"):
		return requireOwnSelector(user, attrs, "spec.nodeName")
	case attrs.Subresource == "" && isVerb(attrs.Verb, "get", "delete"),
		attrs.Subresource == "status" && isVerb(attrs.Verb, "get", "update", "patch"):
		return a.requireBoundPod(ctx, user, attrs)
	}
	return forbidden(user, attrs, "")
}

func (a *nodeAuthorizer) requireBoundPod(ctx context.Context, user *User, attrs Attributes) error {
	if attrs.Name == "" || a.graph == nil {
		return forbidden(user, attrs, "")
	}
	bound, err := a.graph.PodNode(ctx, attrs.Namespace, attrs.Name)
	if err != nil {
		return forbidden(user, attrs, fmt.Sprintf("cannot tell which node the pod is bound to: %v", err))
	}
	if bound != user.Node {
		return forbidden(user, attrs, fmt.Sprintf("the pod is not bound to node %q", user.Node))
	}
	return nil
}

func (a *nodeAuthorizer) nodeReferenced(ctx context.Context, user *User, attrs Attributes) error {
	if attrs.Verb != "get" || attrs.Subresource != "" || attrs.Name == "" || a.graph == nil {
		return forbidden(user, attrs, "")
	}
	ok, err := a.graph.NodeReferences(ctx, user.Node, attrs.Resource, attrs.Namespace, attrs.Name)
	if err != nil {
		return forbidden(user, attrs, fmt.Sprintf("cannot tell which pods reference it: %v", err))
	}
	if !ok {
		return forbidden(user, attrs, fmt.Sprintf("no pod bound to node %q references it", user.Node))
	}
	return nil
}

func nodeLease(user *User, attrs Attributes) error {
	if attrs.Namespace != NodeLeaseNamespace || attrs.Subresource != "" ||
		!isVerb(attrs.Verb, "get", "create", "update") {
		return forbidden(user, attrs, "")
	}
	if attrs.Name != user.Node {
		return forbidden(user, attrs, fmt.Sprintf("node %q may only use the Lease named after it", user.Node))
	}
	return nil
}

// requireOwnSelector allows a list or watch only when its fieldSelector
// requires field=<the user's node> and no other value for that field.
func requireOwnSelector(user *User, attrs Attributes, field string) error {
	want := field + "=" + user.Node
	if strings.TrimSpace(attrs.FieldSelector) == "" {
		return forbidden(user, attrs, "a node must list and watch with fieldSelector "+want)
	}
	sel, err := fields.ParseSelector(attrs.FieldSelector)
	if err != nil {
		return forbidden(user, attrs, fmt.Sprintf("fieldSelector: %v", err))
	}
	found := false
	for _, r := range sel.Requirements() {
		if r.Field != field {
			continue
		}
		if r.Operator != selection.Equals && r.Operator != selection.DoubleEquals {
			continue // a != narrows further; only = picks the node
		}
		if r.Value != user.Node {
			return forbidden(user, attrs, fmt.Sprintf("fieldSelector names node %q, want %s", r.Value, want))
		}
		found = true
	}
	if !found {
		return forbidden(user, attrs, "a node must list and watch with fieldSelector "+want)
	}
	return nil
}

func allowVerbs(user *User, attrs Attributes, verbs ...string) error {
	if attrs.Subresource != "" || !isVerb(attrs.Verb, verbs...) {
		return forbidden(user, attrs, "")
	}
	return nil
}

func isVerb(verb string, verbs ...string) bool { return slices.Contains(verbs, verb) }
