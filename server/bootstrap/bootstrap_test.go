package bootstrap

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/server/registry"
	"github.com/bramble-edge/bramble/server/registry/registrytest"
)

func newRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg := registrytest.New(t)
	return reg
}

var apiservices = api.MustLookup("apiregistration.k8s.io", "v1", "apiservices")

// apiService returns the named APIService's service cell and Available
// status ("" when missing).
func apiService(t *testing.T, reg *registry.Registry, name string) (local bool, available string) {
	t.Helper()
	obj, err := reg.Get(context.Background(), apiservices, "", name)
	if err != nil {
		return false, ""
	}
	s := obj.(*api.APIService)
	for _, c := range s.Status.Conditions {
		if c.Type == "Available" {
			available = c.Status
		}
	}
	return s.Spec.Service == nil, available
}

// TestLocalAPIServicesFollowKinds: Start makes the default roles and, for
// every served group version, a Local, Available APIService; one added at run time gets one, and loses it when
// it goes; an APIService with a service is left alone.
func TestLocalAPIServicesFollowKinds(t *testing.T) {
	reg := newRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	Start(ctx, reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, name := range []string{"v1.", "v1.apps", "v1.rbac.authorization.k8s.io", "v1.apiregistration.k8s.io"} {
		waitFor(t, name+" Local and Available", func() bool { local, a := apiService(t, reg, name); return local && a == "True" })
	}
	waitFor(t, "the default cluster roles", func() bool {
		_, err := reg.Get(ctx, api.MustLookup("rbac.authorization.k8s.io", "v1", "clusterroles"), "", "view")
		return err == nil
	})
	remote := &api.APIService{Spec: api.APIServiceSpec{Group: "metrics.k8s.io", Version: "v1beta1",
		GroupPriorityMinimum: 100, VersionPriority: 100, Service: &api.ServiceReference{Namespace: "kube-system", Name: "metrics-server"}}}
	remote.Name = "v1beta1.metrics.k8s.io"
	if _, err := reg.Create(ctx, apiservices, "", remote, registry.WriteOptions{}); err != nil {
		t.Fatalf("create remote APIService: %v", err)
	}
	gadgets := api.NewUnstructured(api.Resource{Group: "example.bramble.dev", Version: "v1", Name: "gadgets", Singular: "gadget", Kind: "Gadget", Namespaced: true})
	if err := reg.Kinds().Add(gadgets); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "v1.example.bramble.dev Available", func() bool { _, a := apiService(t, reg, "v1.example.bramble.dev"); return a == "True" })
	reg.Kinds().Remove("example.bramble.dev", "v1", "gadgets")
	waitFor(t, "v1.example.bramble.dev gone", func() bool { _, a := apiService(t, reg, "v1.example.bramble.dev"); return a == "" })
	if local, _ := apiService(t, reg, "v1beta1.metrics.k8s.io"); local {
		t.Fatal("the remote APIService was changed or removed")
	}
	if _, err := reg.Get(ctx, apiservices, "", "v1beta1.metrics.k8s.io"); err != nil {
		t.Fatalf("the remote APIService was removed: %v", err)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestDefaultClusterRoles: the defaults are made once; a role an
// administrator changed is not overwritten at the next start.
func TestDefaultClusterRoles(t *testing.T) {
	reg, ctx := newRegistry(t), context.Background()
	if err := EnsureClusterRoles(ctx, reg); err != nil {
		t.Fatal(err)
	}
	res := api.MustLookup("rbac.authorization.k8s.io", "v1", "clusterroles")
	obj, err := reg.Get(ctx, res, "", "edit")
	if err != nil {
		t.Fatal(err)
	}
	edit := obj.(*rbacv1.ClusterRole)
	edit.Labels["changed"] = "yes"
	if _, err := reg.Client().Update(ctx, edit); err != nil {
		t.Fatal(err)
	}
	if err := EnsureClusterRoles(ctx, reg); err != nil {
		t.Fatalf("second start: %v", err)
	}
	for _, name := range []string{"cluster-admin", "admin", "edit", "view", "system:aggregate-to-view"} {
		obj, err := reg.Get(ctx, res, "", name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "edit" && obj.GetLabels()["changed"] != "yes" {
			t.Fatal("a changed default role was overwritten")
		}
	}
}

// TestReconcileDefaults: a start puts back what a default role or binding
// lost, keeps what was added, and leaves alone one annotated
// autoupdate: "false".
func TestReconcileDefaults(t *testing.T) {
	reg, ctx := newRegistry(t), context.Background()
	if err := EnsureClusterRoles(ctx, reg); err != nil {
		t.Fatal(err)
	}
	get := func(res *api.Resource, name string) api.Object {
		obj, err := reg.Get(ctx, res, "", name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return obj.DeepCopyObject().(api.Object)
	}
	disc := get(clusterRolesRes, "system:discovery").(*rbacv1.ClusterRole)
	disc.Rules = []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}}
	pub := get(clusterRolesRes, "system:public-info-viewer").(*rbacv1.ClusterRole)
	pub.Rules, pub.Annotations[autoupdate] = nil, "false"
	bind := get(clusterRoleBindingsRes, "system:basic-user").(*rbacv1.ClusterRoleBinding)
	bind.Subjects = nil
	for _, obj := range []api.Object{disc, pub, bind} {
		if _, err := reg.Client().Update(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	if err := EnsureClusterRoles(ctx, reg); err != nil {
		t.Fatal(err)
	}
	disc = get(clusterRolesRes, "system:discovery").(*rbacv1.ClusterRole)
	if len(disc.Rules) != 2 || disc.Rules[0].NonResourceURLs[0] != "/metrics" {
		t.Errorf("system:discovery rules: got %+v, want the added /metrics rule and the default one", disc.Rules)
	}
	if pub = get(clusterRolesRes, "system:public-info-viewer").(*rbacv1.ClusterRole); len(pub.Rules) != 0 {
		t.Errorf("autoupdate false: got rules %+v, want none", pub.Rules)
	}
	bind = get(clusterRoleBindingsRes, "system:basic-user").(*rbacv1.ClusterRoleBinding)
	if len(bind.Subjects) != 1 || bind.Subjects[0].Name != "system:authenticated" {
		t.Errorf("system:basic-user subjects: got %+v", bind.Subjects)
	}
	for _, name := range []string{"cluster-admin", "system:discovery", "system:public-info-viewer", "bramble:viewer"} {
		get(clusterRoleBindingsRes, name)
	}
}

// TestViewerRoleFollowsKinds: bramble:viewer reads a kind added at run
// time (a CRD's), and never Secrets.
func TestViewerRoleFollowsKinds(t *testing.T) {
	reg := newRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	Start(ctx, reg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	reads := func(group, resource string) bool {
		obj, err := reg.Get(ctx, clusterRolesRes, "", ViewerRole)
		if err != nil {
			return false
		}
		for _, r := range obj.(*rbacv1.ClusterRole).Rules {
			if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) {
				return true
			}
		}
		return false
	}
	waitFor(t, "bramble:viewer reading pods and pods/log", func() bool { return reads("", "pods") && reads("", "pods/log") })
	if reads("", "secrets") || reads("", "pods/exec") {
		t.Fatal("bramble:viewer reads secrets or pods/exec")
	}
	widgets := api.NewUnstructured(api.Resource{Group: "example.bramble.dev", Version: "v1", Name: "widgets", Singular: "widget", Kind: "Widget", Namespaced: true})
	if err := reg.Kinds().Add(widgets); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "bramble:viewer reading widgets", func() bool { return reads("example.bramble.dev", "widgets") })
}
