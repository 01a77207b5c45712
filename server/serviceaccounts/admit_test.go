package serviceaccounts

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/server/registry"
	"github.com/bramble-edge/bramble/server/registry/registrytest"
)

func newRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	reg := registrytest.New(t)
	a := New(reg)
	reg.Use(a)
	if err := a.EnsureAll(context.Background()); err != nil {
		t.Fatalf("EnsureAll: %v", err)
	}
	return reg
}

func pod(ns, name, sa string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{ServiceAccountName: sa, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
}

func TestEveryNamespaceHasDefault(t *testing.T) {
	reg := newRegistry(t)
	c, ctx := reg.Client(), context.Background()
	for _, ns := range registry.SystemNamespaces {
		if _, err := c.Get(ctx, serviceAccounts, ns, DefaultName); err != nil {
			t.Fatalf("%s/default after start: %v", ns, err)
		}
	}
	if _, err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, serviceAccounts, "team", DefaultName); err != nil {
		t.Fatalf("team/default right after the namespace's create: %v", err)
	}
}

func TestPodsGetAndNeedTheirServiceAccount(t *testing.T) {
	reg := newRegistry(t)
	c, ctx := reg.Client(), context.Background()
	got, err := c.Create(ctx, pod("default", "a", ""))
	if err != nil {
		t.Fatal(err)
	}
	if p := got.(*corev1.Pod); p.Spec.ServiceAccountName != DefaultName || p.Spec.DeprecatedServiceAccount != DefaultName {
		t.Fatalf("got %q/%q, want default", p.Spec.ServiceAccountName, p.Spec.DeprecatedServiceAccount)
	}
	_, err = c.Create(ctx, pod("default", "b", "builder"))
	want := `pods "b" is forbidden: error looking up service account default/builder: serviceaccount "builder" not found`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder", Namespace: "default"}}
	if _, err := c.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, pod("default", "b", "builder")); err != nil {
		t.Fatalf("with its account: %v", err)
	}
	mirror := pod("default", "m", "builder-gone")
	mirror.Annotations = map[string]string{mirrorAnnotation: "x"}
	if _, err := c.Create(ctx, mirror); err != nil {
		t.Fatalf("mirror pod: %v", err)
	}
	if err := c.Delete(ctx, serviceAccounts, "default", DefaultName, controllers.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, pod("default", "c", "")); err != nil {
		t.Fatalf("after default was deleted: %v", err)
	}
}
