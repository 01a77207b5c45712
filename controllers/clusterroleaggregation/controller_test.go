package clusterroleaggregation

import (
	"context"
	"fmt"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
	"github.com/bramble-edge/bramble/server/bootstrap"
)

func rule(res string, verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{res}, Verbs: verbs}
}

// TestDefaultRolesAggregate runs the controller over the default roles on
// the real registry: view, edit and admin get their rules, a chart's role
// labelled aggregate-to-view reaches all three, and leaves them when it goes.
func TestDefaultRolesAggregate(t *testing.T) {
	e := controllertest.New(t)
	if err := bootstrap.EnsureClusterRoles(e.Ctx, e.Registry); err != nil {
		t.Fatal(err)
	}
	c := New(controllers.Deps{Cache: e.Cache, Client: e.Client, Log: e.Log})
	e.Start()
	ctx, cancel := context.WithCancel(e.Ctx)
	defer cancel()
	go c.Run(ctx, 1)

	gadgets := rule("gadgets", "get", "list", "watch")
	chart := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "gadget-view",
		Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}}, Rules: []rbacv1.PolicyRule{gadgets}}
	if _, err := e.Client.Create(e.Ctx, chart); err != nil {
		t.Fatal(err)
	}
	holds := func(name string, want rbacv1.PolicyRule, yes bool) func() error {
		return func() error {
			obj, err := e.Client.Get(e.Ctx, clusterRoles, "", name)
			if err != nil {
				return err
			}
			if hasRule(obj.(*rbacv1.ClusterRole).Rules, want) != yes {
				return fmt.Errorf("%s: holds %v is not %v: %+v", name, want, yes, obj.(*rbacv1.ClusterRole).Rules)
			}
			return nil
		}
	}
	pods := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "pods/attach", "pods/exec", "pods/portforward",
		"pods/proxy", "pods/eviction", "configmaps", "endpoints", "persistentvolumeclaims", "replicationcontrollers",
		"replicationcontrollers/scale", "secrets", "serviceaccounts", "services", "services/proxy"},
		Verbs: []string{"get", "list", "watch", "create", "delete", "deletecollection", "patch", "update"}}
	for _, name := range []string{"view", "edit", "admin"} {
		e.Eventually(10*time.Second, holds(name, gadgets, true))
	}
	e.Eventually(10*time.Second, holds("admin", pods, true))
	if err := holds("view", pods, false)(); err != nil {
		t.Fatal(err)
	}
	if err := e.Client.Delete(e.Ctx, clusterRoles, "", "gadget-view", controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"view", "edit", "admin"} {
		e.Eventually(10*time.Second, holds(name, gadgets, false))
	}
	obj, _ := e.Client.Get(e.Ctx, clusterRoles, "", "cluster-admin")
	if !equality.Semantic.DeepEqual(obj.(*rbacv1.ClusterRole).Rules, bootstrap.DefaultClusterRoles()[0].Rules) {
		t.Fatalf("cluster-admin, which aggregates nothing, changed: %+v", obj.(*rbacv1.ClusterRole).Rules)
	}
}
