package auth

import (
	"fmt"
	"strings"

	"github.com/bramble-edge/bramble/join"
)

// Names and groups that carry roles in client certificates. The cluster CA
// issues the admin certificate with CN=AdminUser, O=GroupMasters; node
// certificates carry join.NodeUserPrefix+<node>, O=join.NodeGroup.
const (
	AdminUser    = "admin"
	GroupMasters = "system:masters"
	GroupViewers = join.ViewerGroup
)

// unauthenticatedError is an authentication refusal. Its message is the
// reason alone (no "unauthenticated:" prefix) so the API can put it in a
// Status as it is; errors.Is(err, ErrUnauthenticated) holds.
type unauthenticatedError struct{ reason string }

func (e *unauthenticatedError) Error() string { return e.reason }

func (e *unauthenticatedError) Is(target error) bool { return target == ErrUnauthenticated }

func unauthenticated(format string, args ...any) error {
	return &unauthenticatedError{reason: fmt.Sprintf(format, args...)}
}

// ForbiddenError is an authorization refusal phrased as Kubernetes phrases
// it: User "alice" cannot delete resource "pods" in API group "" in the
// namespace "default". errors.Is(err, ErrForbidden) holds.
type ForbiddenError struct {
	User  string
	Attrs Attributes
	// Reason, when set, is appended after a colon: why the rule refused.
	Reason string
}

// Error renders the refusal in the Kubernetes style.
func (e *ForbiddenError) Error() string {
	var b strings.Builder
	a := e.Attrs
	fmt.Fprintf(&b, "User %q cannot ", e.User)
	if a.NonResourcePath != "" {
		fmt.Fprintf(&b, "%s path %q", a.Verb, a.NonResourcePath)
	} else {
		resource := a.Resource
		if a.Subresource != "" {
			resource += "/" + a.Subresource
		}
		fmt.Fprintf(&b, "%s resource %q in API group %q", a.Verb, resource, a.Group)
		if a.Namespace != "" {
			fmt.Fprintf(&b, " in the namespace %q", a.Namespace)
		} else {
			b.WriteString(" at the cluster scope")
		}
	}
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	return b.String()
}

// Is reports ErrForbidden as the sentinel this error stands for.
func (e *ForbiddenError) Is(target error) bool { return target == ErrForbidden }

func forbidden(user *User, attrs Attributes, reason string) error {
	return &ForbiddenError{User: user.Name, Attrs: attrs, Reason: reason}
}
