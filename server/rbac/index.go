package rbac

import (
	"slices"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/api"
)

// subject is who a binding grants to. A ServiceAccount subject is kept as
// the user its tokens authenticate as (system:serviceaccount:<ns>:<name>),
// so a request looks up users and groups only.
type subject struct {
	group bool
	name  string
}

// scoped is a subject's bindings in one namespace ("" for the
// ClusterRoleBindings): a decision looks at the request's namespace and
// the cluster's, never at other namespaces' bindings.
type scoped struct {
	subject
	namespace string
}

// roleKey names a Role (namespace set) or a ClusterRole (namespace "").
type roleKey struct{ namespace, name string }

// binding is one RoleBinding (namespace set) or ClusterRoleBinding.
type binding struct {
	key      roleKey // the binding's own namespace and name
	role     roleKey
	subjects []subject
}

// Index holds the RBAC objects a decision needs: every role's rules and,
// per subject, the bindings naming it. It is kept current by informer
// handlers (see Follow) and read under a read lock; nothing is listed or
// copied per request.
type Index struct {
	mu        sync.RWMutex
	roles     map[roleKey][]rbacv1.PolicyRule
	bindings  map[roleKey]*binding  // by the binding's namespace ("" cluster) and name
	bySubject map[scoped][]*binding // a slice: most subjects have few bindings per namespace
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{roles: map[roleKey][]rbacv1.PolicyRule{}, bindings: map[roleKey]*binding{},
		bySubject: map[scoped][]*binding{}}
}

// SetRole records the rules of a Role or ClusterRole (namespace "").
func (x *Index) SetRole(namespace, name string, rules []rbacv1.PolicyRule) {
	x.mu.Lock()
	x.roles[roleKey{namespace, name}] = rules
	x.mu.Unlock()
}

// DeleteRole forgets a role; bindings to it grant nothing until it returns.
func (x *Index) DeleteRole(namespace, name string) {
	x.mu.Lock()
	delete(x.roles, roleKey{namespace, name})
	x.mu.Unlock()
}

// SetBinding records a RoleBinding (namespace set) or ClusterRoleBinding,
// replacing what was recorded under its name.
func (x *Index) SetBinding(namespace, name string, ref rbacv1.RoleRef, subjects []rbacv1.Subject) {
	b := &binding{key: roleKey{namespace, name}, role: roleKey{name: ref.Name}}
	if ref.Kind == "Role" {
		b.role.namespace = namespace
	}
	for _, s := range subjects {
		if sub, ok := subjectOf(namespace, s); ok {
			b.subjects = append(b.subjects, sub)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.removeLocked(b.key)
	x.bindings[b.key] = b
	for _, s := range b.subjects {
		k := scoped{s, namespace}
		if !slices.Contains(x.bySubject[k], b) {
			x.bySubject[k] = append(x.bySubject[k], b)
		}
	}
}

// DeleteBinding forgets a binding.
func (x *Index) DeleteBinding(namespace, name string) {
	x.mu.Lock()
	x.removeLocked(roleKey{namespace, name})
	x.mu.Unlock()
}

func (x *Index) removeLocked(key roleKey) {
	old := x.bindings[key]
	if old == nil {
		return
	}
	delete(x.bindings, key)
	for _, s := range old.subjects {
		k := scoped{s, key.namespace}
		rest := slices.DeleteFunc(x.bySubject[k], func(b *binding) bool { return b == old })
		if len(rest) == 0 {
			delete(x.bySubject, k)
		} else {
			x.bySubject[k] = rest
		}
	}
}

// subjectOf maps a binding subject to the identity it matches. A
// ServiceAccount without a namespace in a RoleBinding is in the binding's.
func subjectOf(bindingNS string, s rbacv1.Subject) (subject, bool) {
	switch s.Kind {
	case rbacv1.UserKind:
		return subject{name: s.Name}, true
	case rbacv1.GroupKind:
		return subject{group: true, name: s.Name}, true
	case rbacv1.ServiceAccountKind:
		ns := s.Namespace
		if ns == "" {
			ns = bindingNS
		}
		return subject{name: ServiceAccountUser(ns, s.Name)}, ns != ""
	}
	return subject{}, false
}

// ServiceAccountUser is the user name a service account's tokens carry.
func ServiceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// Apply records obj, an object of one of the four RBAC kinds.
func (x *Index) Apply(obj api.Object) {
	switch o := obj.(type) {
	case *rbacv1.Role:
		x.SetRole(o.Namespace, o.Name, o.Rules)
	case *rbacv1.ClusterRole:
		x.SetRole("", o.Name, o.Rules)
	case *rbacv1.RoleBinding:
		x.SetBinding(o.Namespace, o.Name, o.RoleRef, o.Subjects)
	case *rbacv1.ClusterRoleBinding:
		x.SetBinding("", o.Name, o.RoleRef, o.Subjects)
	}
}

// Remove forgets obj, an object of one of the four RBAC kinds.
func (x *Index) Remove(obj api.Object) {
	switch obj.(type) {
	case *rbacv1.Role, *rbacv1.ClusterRole:
		x.DeleteRole(obj.GetNamespace(), obj.GetName())
	case *rbacv1.RoleBinding, *rbacv1.ClusterRoleBinding:
		x.DeleteBinding(obj.GetNamespace(), obj.GetName())
	}
}

// RoleRules returns the rules of a Role (namespace set) or ClusterRole,
// and whether it exists. They are the index's own: never change them.
func (x *Index) RoleRules(namespace, name string) ([]rbacv1.PolicyRule, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	rules, ok := x.roles[roleKey{namespace, name}]
	return rules, ok
}
