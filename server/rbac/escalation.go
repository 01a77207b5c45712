package rbac

import (
	"context"
	"errors"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/bramble-edge/bramble/server/auth"
	"github.com/bramble-edge/bramble/server/registry"
)

// Escalation is admission that keeps users from granting what they do not
// hold, as upstream's RBAC storage does: a Role or ClusterRole may be
// written only by someone who holds all its rules (in its namespace) or
// may "escalate" it; a binding only by someone who holds all the rules of
// the role it names or may "bind" that role. An aggregated ClusterRole
// needs escalate. The server's own writes (no user) pass.
type Escalation struct {
	authz *Authorizer
}

var _ registry.Admitter = (*Escalation)(nil)

// NewEscalation checks writes against authz's index.
func NewEscalation(authz *Authorizer) *Escalation { return &Escalation{authz: authz} }

// Admit implements registry.Admitter.
func (e *Escalation) Admit(ctx context.Context, a *registry.Attributes) (func(bool), error) {
	if a.Resource.Group != rbacv1.GroupName || a.Subresource != "" {
		return nil, nil
	}
	info, ok := registry.UserFrom(ctx)
	if !ok {
		return nil, nil
	}
	user := &auth.User{Name: info.Name, UID: info.UID, Groups: info.Groups}
	switch o := a.Object.(type) {
	case *rbacv1.Role:
		return nil, e.admitRole(ctx, user, "roles", o.Namespace, o.Name, o.Rules, false)
	case *rbacv1.ClusterRole:
		return nil, e.admitRole(ctx, user, "clusterroles", "", o.Name, o.Rules, o.AggregationRule != nil)
	case *rbacv1.RoleBinding:
		return nil, e.admitBinding(ctx, user, "rolebindings", o.Namespace, o.Name, o.RoleRef)
	case *rbacv1.ClusterRoleBinding:
		return nil, e.admitBinding(ctx, user, "clusterrolebindings", "", o.Name, o.RoleRef)
	}
	return nil, nil
}

func (e *Escalation) may(ctx context.Context, user *auth.User, verb, resource, namespace, name string) bool {
	return e.authz.Authorize(ctx, user, auth.Attributes{Verb: verb, Group: rbacv1.GroupName,
		Resource: resource, Namespace: namespace, Name: name}) == nil
}

func (e *Escalation) admitRole(ctx context.Context, user *auth.User, resource, ns, name string, rules []rbacv1.PolicyRule, aggregated bool) error {
	if e.may(ctx, user, "escalate", resource, ns, name) {
		return nil
	}
	if aggregated {
		return refuse(resource, name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
	}
	return e.confirmHeld(user, resource, ns, name, rules)
}

func (e *Escalation) admitBinding(ctx context.Context, user *auth.User, resource, ns, name string, ref rbacv1.RoleRef) error {
	roleRes, roleNS := "clusterroles", ""
	if ref.Kind == "Role" {
		roleRes, roleNS = "roles", ns
	}
	if e.may(ctx, user, "bind", roleRes, ns, ref.Name) {
		return nil
	}
	rules, ok := e.authz.Index().RoleRules(roleNS, ref.Name)
	if !ok {
		return refuse(resource, name, fmt.Errorf("user %q cannot bind %s %q, which does not exist, without the bind verb on it",
			user.Name, ref.Kind, ref.Name))
	}
	return e.confirmHeld(user, resource, ns, name, rules)
}

// confirmHeld refuses when user does not hold every rule in ns.
func (e *Escalation) confirmHeld(user *auth.User, resource, ns, name string, rules []rbacv1.PolicyRule) error {
	owner, all := e.authz.RulesFor(user, ns)
	if all {
		return nil
	}
	var missing []string
	for _, r := range rules {
		if ok, parts := Covers(owner, r); !ok {
			for _, p := range parts {
				missing = append(missing, compactRule(p))
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return refuse(resource, name, fmt.Errorf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		user.Name, user.Groups, strings.Join(missing, "\n")))
}

func refuse(resource, name string, err error) error {
	return apierrors.NewForbidden(rbacv1.Resource(resource), name, err)
}

// compactRule prints a rule as upstream's escalation message does:
// {APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}.
func compactRule(r rbacv1.PolicyRule) string {
	var parts []string
	for _, f := range []struct {
		name string
		vals []string
	}{{"APIGroups", r.APIGroups}, {"Resources", r.Resources}, {"ResourceNames", r.ResourceNames},
		{"NonResourceURLs", r.NonResourceURLs}, {"Verbs", r.Verbs}} {
		if f.vals == nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s:%q", f.name, f.vals))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
