package bootstrap

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
)

// The user-facing roles, shaped as upstream's: cluster-admin holds
// everything; admin, edit and view aggregate the ClusterRoles labelled
// rbac.authorization.k8s.io/aggregate-to-<role>, and the
// system:aggregate-to-<role> roles carry the rules (each role's
// aggregate-to label also puts its rules into the broader roles).
// They are enforced by server/rbac.

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"create", "delete", "deletecollection", "patch", "update"}
	// viewed are the resources view reads, by API group.
	viewed = map[string][]string{
		"": {"configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods", "pods/log",
			"pods/status", "replicationcontrollers", "replicationcontrollers/scale", "replicationcontrollers/status",
			"serviceaccounts", "services", "services/status", "bindings", "events", "limitranges", "resourcequotas",
			"resourcequotas/status", "namespaces", "namespaces/status"},
		"apps": {"controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
			"deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets",
			"statefulsets/scale", "statefulsets/status"},
		"autoscaling":       {"horizontalpodautoscalers", "horizontalpodautoscalers/status"},
		"batch":             {"cronjobs", "cronjobs/status", "jobs", "jobs/status"},
		"discovery.k8s.io":  {"endpointslices"},
		"policy":            {"poddisruptionbudgets", "poddisruptionbudgets/status"},
		"networking.k8s.io": {"ingresses", "ingresses/status", "networkpolicies"},
	}
	// edited are the resources edit writes (and reads), by API group.
	edited = map[string][]string{
		"": {"pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "pods/eviction", "configmaps",
			"endpoints", "persistentvolumeclaims", "replicationcontrollers", "replicationcontrollers/scale",
			"secrets", "serviceaccounts", "services", "services/proxy"},
		"apps": {"daemonsets", "deployments", "deployments/rollback", "deployments/scale", "replicasets",
			"replicasets/scale", "statefulsets", "statefulsets/scale"},
		"autoscaling":       {"horizontalpodautoscalers"},
		"batch":             {"cronjobs", "jobs"},
		"discovery.k8s.io":  {"endpointslices"},
		"policy":            {"poddisruptionbudgets"},
		"networking.k8s.io": {"ingresses", "networkpolicies"},
	}
)

func rulesFor(byGroup map[string][]string, verbs []string) []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	for _, g := range []string{"", "apps", "autoscaling", "batch", "discovery.k8s.io", "networking.k8s.io", "policy"} {
		if res := byGroup[g]; len(res) > 0 {
			rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: res, Verbs: verbs})
		}
	}
	return rules
}

// DefaultClusterRoles are the roles EnsureClusterRoles makes.
func DefaultClusterRoles() []*rbacv1.ClusterRole {
	edit := append(rulesFor(edited, append(append([]string{}, readVerbs...), writeVerbs...)),
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"serviceaccounts/token"}, Verbs: []string{"create"}},
		rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"impersonate"}})
	admin := []rbacv1.PolicyRule{
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"roles", "rolebindings"}, Verbs: append(append([]string{}, readVerbs...), writeVerbs...)},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"localsubjectaccessreviews"}, Verbs: []string{"create"}},
	}
	return []*rbacv1.ClusterRole{
		role("cluster-admin", nil, nil, []rbacv1.PolicyRule{
			{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}},
			{NonResourceURLs: []string{"*"}, Verbs: []string{"*"}}}),
		role("admin", nil, aggregate("admin"), nil),
		role("edit", map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}, aggregate("edit"), nil),
		role("view", map[string]string{"rbac.authorization.k8s.io/aggregate-to-edit": "true"}, aggregate("view"), nil),
		role("system:aggregate-to-admin", map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true"}, nil, admin),
		role("system:aggregate-to-edit", map[string]string{"rbac.authorization.k8s.io/aggregate-to-edit": "true"}, nil, edit),
		role("system:aggregate-to-view", map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}, nil, rulesFor(viewed, readVerbs)),
	}
}

func aggregate(to string) *rbacv1.AggregationRule {
	return &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
		{MatchLabels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-" + to: "true"}}}}
}

func role(name string, labels map[string]string, agg *rbacv1.AggregationRule, rules []rbacv1.PolicyRule) *rbacv1.ClusterRole {
	l := map[string]string{"kubernetes.io/bootstrapping": "rbac-defaults"}
	for k, v := range labels {
		l[k] = v
	}
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l,
		Annotations: map[string]string{autoupdate: "true"}},
		AggregationRule: agg, Rules: rules}
}

// EnsureClusterRoles reconciles the default ClusterRoles and their
// ClusterRoleBindings as upstream does at start: a missing one is
// created; one that exists gets back the rules, subjects, labels and
// annotations of the default it lacks (what an administrator added is
// kept), unless annotated rbac.authorization.kubernetes.io/autoupdate:
// "false". bramble:viewer reads the kinds served then (Start runs it again
// when they change, so a CRD's resources join it).
func EnsureClusterRoles(ctx context.Context, reg *registry.Registry) error {
	for _, r := range append(DefaultClusterRoles(), SystemClusterRoles(reg.Kinds().All())...) {
		if err := reconcileDefault(ctx, reg, clusterRolesRes, r, mergeRole); err != nil {
			return fmt.Errorf("cluster role %s: %w", r.Name, err)
		}
	}
	for _, b := range DefaultClusterRoleBindings() {
		if err := reconcileDefault(ctx, reg, clusterRoleBindingsRes, b, mergeBinding); err != nil {
			return fmt.Errorf("cluster role binding %s: %w", b.Name, err)
		}
	}
	return nil
}

var (
	clusterRolesRes        = api.MustLookup("rbac.authorization.k8s.io", "v1", "clusterroles")
	clusterRoleBindingsRes = api.MustLookup("rbac.authorization.k8s.io", "v1", "clusterrolebindings")
)

// reconcileDefault creates want, or merges it into the stored object with merge
// (which reports whether it changed anything) and updates that.
func reconcileDefault(ctx context.Context, reg *registry.Registry, res *api.Resource, want api.Object,
	merge func(have, want api.Object) bool) error {
	for attempt := 0; attempt < 5; attempt++ {
		obj, err := reg.Get(ctx, res, "", want.GetName())
		if apierrors.IsNotFound(err) {
			_, err = reg.Create(ctx, res, "", want, registry.WriteOptions{})
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			return err
		}
		if err != nil {
			return err
		}
		have := obj.DeepCopyObject().(api.Object)
		if have.GetAnnotations()[autoupdate] == "false" || !merge(have, want) {
			return nil
		}
		_, err = reg.Client().Update(ctx, have)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("%s %s kept changing while reconciled", res.Kind, want.GetName())
}
