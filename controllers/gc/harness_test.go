package gc

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/api"
	"github.com/bramble-edge/bramble/controllers"
	"github.com/bramble-edge/bramble/controllers/controllertest"
)

const waitFor = 20 * time.Second

var (
	podsRes        = controllertest.Resource("", "pods")
	configMapsRes  = controllertest.Resource("", "configmaps")
	secretsRes     = controllertest.Resource("", "secrets")
	replicaSetsRes = controllertest.Resource("apps", "replicasets")
	deploymentsRes = controllertest.Resource("apps", "deployments")
	nodesRes       = controllertest.Resource("", "nodes")
	namespacesRes  = controllertest.Resource("", "namespaces")
)

type harness struct {
	*controllertest.Env
	gc *Controller
}

// start runs the collector (alone: no other controller) on a fresh env.
// With run false the cache is not started either.
func start(t testing.TB, run bool) *harness {
	t.Helper()
	env := controllertest.New(t)
	h := &harness{Env: env, gc: New(controllers.Deps{Cache: env.Cache, Client: env.Client, Log: env.Log})}
	if !run {
		return h
	}
	env.Start()
	ctx, cancel := context.WithCancel(env.Ctx)
	done := make(chan struct{})
	go func() { defer close(done); h.gc.Run(ctx, 2) }()
	t.Cleanup(func() { cancel(); <-done })
	return h
}

func (h *harness) create(obj api.Object) api.Object {
	h.T.Helper()
	return controllertest.MustCreate(h.Env, obj)
}

func (h *harness) createRS(name string) *appsv1.ReplicaSet {
	h.T.Helper()
	return h.createScaledRS(name, 0)
}

func (h *harness) createScaledRS(name string, replicas int32) *appsv1.ReplicaSet {
	h.T.Helper()
	sel := map[string]string{"app": name}
	return h.create(&appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}},
	}).(*appsv1.ReplicaSet)
}

func (h *harness) createPod(name string, finalizers []string, owners ...metav1.OwnerReference) *corev1.Pod {
	h.T.Helper()
	return h.create(&corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", OwnerReferences: owners, Finalizers: finalizers},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}).(*corev1.Pod)
}

func (h *harness) createCM(ns, name string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
	h.T.Helper()
	return h.create(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, OwnerReferences: owners},
	}).(*corev1.ConfigMap)
}

// ownerRef refers to obj, a kind of res; block sets blockOwnerDeletion
// and controller.
func ownerRef(res *api.Resource, obj api.Object, block bool) metav1.OwnerReference {
	ref := metav1.OwnerReference{APIVersion: res.APIVersion(), Kind: res.Kind, Name: obj.GetName(), UID: obj.GetUID()}
	if block {
		yes := true
		ref.BlockOwnerDeletion, ref.Controller = &yes, &yes
	}
	return ref
}

func (h *harness) get(res *api.Resource, ns, name string) (api.Object, error) {
	return h.Client.Get(h.Ctx, res, ns, name)
}

func (h *harness) mustGet(res *api.Resource, ns, name string) api.Object {
	h.T.Helper()
	return controllertest.MustGet[api.Object](h.Env, res, ns, name)
}

// goneErr is nil once the object is gone.
func (h *harness) goneErr(res *api.Resource, ns, name string) error {
	_, err := h.get(res, ns, name)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("%s %s/%s still exists", res.Name, ns, name)
}

func (h *harness) waitGone(res *api.Resource, ns string, names ...string) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		for _, n := range names {
			if err := h.goneErr(res, ns, n); err != nil {
				return err
			}
		}
		return nil
	})
}

func (h *harness) delete(res *api.Resource, ns, name string, policy metav1.DeletionPropagation) {
	h.T.Helper()
	if err := h.Client.Delete(h.Ctx, res, ns, name, controllers.DeleteOptions{Propagation: policy}); err != nil {
		h.T.Fatalf("delete %s %s/%s (%s): %v", res.Name, ns, name, policy, err)
	}
}

// removeFinalizers clears an object's finalizers, as their owner would,
// retrying when the collector wrote it meanwhile.
func (h *harness) removeFinalizers(res *api.Resource, ns, name string) {
	h.T.Helper()
	h.Eventually(waitFor, func() error {
		obj := h.mustGet(res, ns, name)
		obj.SetFinalizers(nil)
		_, err := h.Client.Update(h.Ctx, obj)
		if err != nil && !apierrors.IsConflict(err) {
			h.T.Fatalf("remove finalizers of %s %s/%s: %v", res.Name, ns, name, err)
		}
		return err
	})
}
