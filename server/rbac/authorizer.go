package rbac

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/informer"
	"github.com/bramble-edge/bramble/server/auth"
)

// Authorizer is the API server's authorizer: the group system:masters may
// do everything; a node identity (role node) gets what the node rules of
// auth.NewNodeAuthorizer allow; everything else, and what the node rules
// refuse a node, is decided by RBAC.
type Authorizer struct {
	index *Index
	nodes auth.Authorizer
	// synced reports whether the index holds the first list of every RBAC
	// kind; until then a decision waits for it.
	synced atomic.Bool
	wait   func(ctx context.Context) bool
}

var _ auth.Authorizer = (*Authorizer)(nil)

// New returns an authorizer over index. nodes decides for node identities
// first (nil: nodes go to RBAC alone).
func New(index *Index, nodes auth.Authorizer) *Authorizer {
	a := &Authorizer{index: index, nodes: nodes}
	a.synced.Store(true)
	return a
}

// Index is the index the authorizer decides from.
func (a *Authorizer) Index() *Index { return a.index }

// RBACResources are the four kinds the index follows.
var RBACResources = []*api.Resource{
	api.MustLookup(rbacv1.GroupName, "v1", "roles"),
	api.MustLookup(rbacv1.GroupName, "v1", "clusterroles"),
	api.MustLookup(rbacv1.GroupName, "v1", "rolebindings"),
	api.MustLookup(rbacv1.GroupName, "v1", "clusterrolebindings"),
}

// Follow keeps the index current from cache's informers of the RBAC kinds.
// Decisions made before their first list is loaded wait for it.
func (a *Authorizer) Follow(cache *informer.Cache) {
	infs := make([]*informer.Informer, 0, len(RBACResources))
	for _, res := range RBACResources {
		inf := cache.Informer(res)
		inf.AddHandler(informer.Handler{
			OnAdd:    a.index.Apply,
			OnUpdate: func(_, cur api.Object) { a.index.Apply(cur) },
			OnDelete: a.index.Remove,
		})
		infs = append(infs, inf)
	}
	a.synced.Store(false)
	a.wait = func(ctx context.Context) bool {
		for _, inf := range infs {
			if !inf.HasSynced() {
				return cache.WaitForSync(ctx)
			}
		}
		return true
	}
}

// Authorize implements auth.Authorizer.
func (a *Authorizer) Authorize(ctx context.Context, user *auth.User, attrs auth.Attributes) error {
	if user == nil {
		user = &auth.User{Name: AnonymousUser, Groups: []string{GroupUnauthenticated}}
	}
	if slices.Contains(user.Groups, auth.GroupMasters) {
		return nil
	}
	var nodeErr error
	if user.Role == auth.RoleNode && a.nodes != nil {
		if nodeErr = a.nodes.Authorize(ctx, user, attrs); nodeErr == nil {
			return nil
		}
	}
	if !a.synced.Load() {
		if !a.wait(ctx) {
			return errors.Join(errors.New("authorization: the RBAC cache is not loaded yet"), ctx.Err())
		}
		a.synced.Store(true)
	}
	if a.allows(user, &attrs) {
		return nil
	}
	if nodeErr != nil {
		return nodeErr
	}
	return &auth.ForbiddenError{User: user.Name, Attrs: attrs}
}

// allows asks the index for user, who is also in system:authenticated
// unless anonymous.
func (a *Authorizer) allows(user *auth.User, attrs *auth.Attributes) bool {
	if a.index.Allows(user.Name, user.Groups, attrs) {
		return true
	}
	if user.Name == AnonymousUser || slices.Contains(user.Groups, GroupAuthenticated) {
		return false
	}
	return a.index.Allows("", authenticatedOnly, attrs)
}

var authenticatedOnly = []string{GroupAuthenticated}

// Groups returns user's groups as RBAC sees them: system:authenticated
// (system:unauthenticated for the anonymous user) added when missing.
func Groups(user *auth.User) []string {
	extra := GroupAuthenticated
	if user.Name == AnonymousUser {
		extra = GroupUnauthenticated
	}
	if slices.Contains(user.Groups, extra) {
		return user.Groups
	}
	return append(slices.Clip(user.Groups), extra)
}

// RulesFor returns the rules user holds in namespace, and whether user is
// in system:masters (who holds every rule).
func (a *Authorizer) RulesFor(user *auth.User, namespace string) ([]rbacv1.PolicyRule, bool) {
	if slices.Contains(user.Groups, auth.GroupMasters) {
		return []rbacv1.PolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
			{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}, true
	}
	return a.index.RulesFor(user.Name, Groups(user), namespace), false
}
