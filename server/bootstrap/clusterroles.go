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
// bramble does not enforce RBAC yet; charts bind to these names.

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
		Annotations: map[string]string{"rbac.authorization.kubernetes.io/autoupdate": "true"}},
		AggregationRule: agg, Rules: rules}
}

// EnsureClusterRoles creates the default ClusterRoles that do not exist;
// ones that do (perhaps changed by an administrator) are left alone.
func EnsureClusterRoles(ctx context.Context, reg *registry.Registry) error {
	res := api.MustLookup("rbac.authorization.k8s.io", "v1", "clusterroles")
	list, err := reg.List(ctx, res, "", registry.ListOptions{})
	if err != nil {
		return fmt.Errorf("list cluster roles: %w", err)
	}
	have := map[string]bool{}
	for _, obj := range list.Items {
		have[obj.GetName()] = true
	}
	for _, r := range DefaultClusterRoles() {
		if have[r.Name] {
			continue
		}
		_, err := reg.Create(ctx, res, "", r, registry.WriteOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create cluster role %s: %w", r.Name, err)
		}
	}
	return nil
}
