package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bramble-edge/bramble/join"
	"github.com/bramble-edge/bramble/server/auth"
)

// Impersonation headers, as upstream names them.
const (
	hdrImpersonateUser   = "Impersonate-User"
	hdrImpersonateGroup  = "Impersonate-Group"
	hdrImpersonateUID    = "Impersonate-Uid"
	hdrImpersonateExtra  = "Impersonate-Extra-"
	saUserPrefix         = "system:serviceaccount:"
	groupAuthenticated   = "system:authenticated"
	groupUnauthenticated = "system:unauthenticated"
	anonymousUser        = "system:anonymous"
)

// impersonate returns the user r asks to act as (kubectl --as, --as-group,
// --as-uid), after asking the authorizer whether user may impersonate each
// part: users (serviceaccounts for system:serviceaccount:<ns>:<name>),
// groups, uids and userextras/<key> with the verb "impersonate". Without
// impersonation headers it returns user.
func (a *API) impersonate(r *http.Request, user *auth.User) (*auth.User, error) {
	h := r.Header
	name := h.Get(hdrImpersonateUser)
	groups, uid, extra := h.Values(hdrImpersonateGroup), h.Get(hdrImpersonateUID), impersonatedExtra(h)
	if name == "" {
		if len(groups) > 0 || uid != "" || len(extra) > 0 {
			return nil, badRequest("requested impersonation of groups, uid or extra without impersonating a user (%s)", hdrImpersonateUser)
		}
		return user, nil
	}
	if err := a.mayImpersonateAll(r.Context(), user, name, groups, uid, extra); err != nil {
		return nil, err
	}
	return impersonatedIdentity(name, groups, uid, extra), nil
}

// mayImpersonateAll asks about each part of the identity asked for.
func (a *API) mayImpersonateAll(ctx context.Context, user *auth.User, name string, groups []string, uid string, extra map[string][]string) error {
	asks := []auth.Attributes{impersonatedUser(name)}
	for _, g := range groups {
		asks = append(asks, auth.Attributes{Resource: "groups", Name: g})
	}
	if uid != "" {
		asks = append(asks, auth.Attributes{Group: "authentication.k8s.io", Resource: "uids", Name: uid})
	}
	for k, vs := range extra {
		for _, v := range vs {
			asks = append(asks, auth.Attributes{Group: "authentication.k8s.io", Resource: "userextras", Subresource: k, Name: v})
		}
	}
	for _, attrs := range asks {
		if err := a.mayImpersonate(ctx, user, attrs); err != nil {
			return err
		}
	}
	return nil
}

// impersonatedUser is what impersonating name asks of the authorizer.
func impersonatedUser(name string) auth.Attributes {
	if rest, ok := strings.CutPrefix(name, saUserPrefix); ok {
		if ns, sa, ok := strings.Cut(rest, ":"); ok {
			return auth.Attributes{Resource: "serviceaccounts", Namespace: ns, Name: sa}
		}
	}
	return auth.Attributes{Resource: "users", Name: name}
}

func (a *API) mayImpersonate(ctx context.Context, user *auth.User, attrs auth.Attributes) error {
	attrs.Verb = "impersonate"
	err := a.authz.Authorize(ctx, user, attrs)
	if err == nil {
		return nil
	}
	if !errors.Is(err, auth.ErrForbidden) {
		return fmt.Errorf("check impersonation: %w", err)
	}
	return apierrors.NewForbidden(schema.GroupResource{Group: attrs.Group, Resource: attrs.Resource}, attrs.Name, err)
}

// impersonatedIdentity builds the user a request acts as: a service
// account is in its groups unless some were asked for; everyone but the
// anonymous user is authenticated; a node name with system:nodes is a node.
func impersonatedIdentity(name string, groups []string, uid string, extra map[string][]string) *auth.User {
	u := &auth.User{Name: name, Groups: slices.Clone(groups), UID: uid, Extra: extra}
	if rest, ok := strings.CutPrefix(name, saUserPrefix); ok && len(groups) == 0 {
		ns, _, _ := strings.Cut(rest, ":")
		u.Groups = []string{"system:serviceaccounts", "system:serviceaccounts:" + ns}
	}
	want := groupAuthenticated
	if name == anonymousUser {
		want = groupUnauthenticated
	}
	if !slices.Contains(u.Groups, want) {
		u.Groups = append(u.Groups, want)
	}
	if node, ok := strings.CutPrefix(name, join.NodeUserPrefix); ok && slices.Contains(u.Groups, join.NodeGroup) {
		u.Role, u.Node = auth.RoleNode, node
	}
	return u
}

// impersonatedExtra reads Impersonate-Extra-<key> headers; keys are
// percent-decoded and lowercased as upstream does.
func impersonatedExtra(h http.Header) map[string][]string {
	var out map[string][]string
	for k, vs := range h {
		rest, ok := strings.CutPrefix(k, hdrImpersonateExtra)
		if !ok || rest == "" {
			continue
		}
		key, err := url.PathUnescape(rest)
		if err != nil {
			key = rest
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[strings.ToLower(key)] = append(out[strings.ToLower(key)], vs...)
	}
	return out
}

// authenticated returns user with system:authenticated among its groups,
// as upstream adds it to every authenticated identity (a copy when added:
// the authenticator's users may be shared).
func authenticated(user *auth.User) *auth.User {
	if slices.Contains(user.Groups, groupAuthenticated) || slices.Contains(user.Groups, groupUnauthenticated) {
		return user
	}
	u := *user
	u.Groups = append(slices.Clip(user.Groups), groupAuthenticated)
	return &u
}
