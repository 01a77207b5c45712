package apiserver

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/controllers"
)

func TestInProcessCreateUpdate(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default"}, Data: map[string]string{"a": "1"}}
	obj, err := e.api.Registry().Client().Create(ctx, cm)
	if err != nil || obj.GetUID() == "" || obj.GetResourceVersion() == "" {
		t.Fatalf("Create: got %v, %v; want an object with uid and rv", obj, err)
	}
	if cm.ResourceVersion != "" {
		t.Fatal("Create modified the caller's object")
	}
	stale := obj.DeepCopyObject().(*corev1.ConfigMap)
	upd := obj.DeepCopyObject().(*corev1.ConfigMap)
	upd.Data["a"] = "2"
	if _, err := e.api.Registry().Client().Update(ctx, upd); err != nil {
		t.Fatalf("Update: %v", err)
	}
	stale.Data["a"] = "3"
	if _, err := e.api.Registry().Client().Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Fatalf("Update with a stale rv: got %v, want Conflict", err)
	}
	if _, err := e.api.Registry().Client().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "y", Namespace: "nope"}}); !apierrors.IsNotFound(err) {
		t.Fatalf("Create in a missing namespace: got %v, want NotFound", err)
	}
}

func TestInProcessStatusBindDelete(t *testing.T) {
	e := newTestEnv(t)
	ctx := context.Background()
	e.post(deployPath, manifest(t, "deployments", "web"))
	d := &appsv1.Deployment{}
	e.get(deployPath+"/web").into(t, d)
	d.Status.ObservedGeneration, d.Status.Replicas = 1, 2
	out, err := e.api.Registry().Client().UpdateStatus(ctx, d)
	if err != nil || out.(*appsv1.Deployment).Status.Replicas != 2 {
		t.Fatalf("UpdateStatus: got %v, %v; want status.replicas 2", out, err)
	}

	e.post(podPath, manifest(t, "pods", "p1"))
	if err := e.api.Registry().Client().Bind(ctx, "default", "p1", "pi-1"); err != nil {
		t.Fatalf("Bind: %v", err)
	}
	if err := e.api.Registry().Client().Bind(ctx, "default", "p1", "pi-2"); !apierrors.IsConflict(err) {
		t.Fatalf("second Bind: got %v, want Conflict", err)
	}
	if err := e.api.Registry().Client().Delete(ctx, podsResource, "default", "p1", controllers.DeleteOptions{UID: "wrong-uid"}); !apierrors.IsConflict(err) {
		t.Fatalf("Delete with a wrong uid: got %v, want Conflict", err)
	}
	if err := e.api.Registry().Client().Delete(ctx, podsResource, "default", "p1", controllers.DeleteOptions{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
}
